// A session's project instructions (issue 30): the AGENTS.md files of the instance home and of the folders from the
// repository root down to the working folder, in the system prompt; and the files of folders below that join the
// context when a tool first touches them. Files the tools may not read never become instructions either.
import { realpath } from "node:fs/promises";
import path from "node:path";
import type { ResolvedConfig } from "../config/index.ts";
import {
  type InstructionFile,
  type InstructionSources,
  instructionsSection,
  loadInstructions,
  NestedInstructions,
} from "../instructions/index.ts";
import { isSecretLikePath } from "../policy/index.ts";
import { isInside } from "../util/path.ts";
import { repositoryRoot } from "../util/repository_root.ts";

export type ProjectInstructions = {
  /** The files of the system prompt, in order. */
  files: InstructionFile[];
  /** Their section of the system prompt ("" without any). */
  section: string;
  /** `project_doc_max_bytes`. */
  maxBytes: number;
  /** The files that join because a tool touched these absolute paths (each folder once per session). */
  touched(paths: readonly string[]): Promise<InstructionFile[]>;
  /** The section for a sub-agent working in `folder` (inside the workspace): the chain down to it. */
  sectionFor(folder: string): Promise<string>;
};

export async function projectInstructions(options: {
  config: ResolvedConfig;
  home: string;
  workspace: string;
  workingFolder: string;
  /** The user's home folder: a repository there (dotfiles) is no project root. */
  userHome: string;
  /** True when the client brought its own system prompt: no instructions at all. */
  none: boolean;
}): Promise<ProjectInstructions> {
  const { config, workspace, workingFolder } = options;
  const maxBytes = config.project_doc_max_bytes;
  if (options.none) {
    return {
      files: [],
      section: "",
      maxBytes,
      touched: () => Promise.resolve([]),
      sectionFor: () => Promise.resolve(""),
    };
  }
  const userHome = await realpath(options.userHome).catch(() => path.resolve(options.userHome));
  const repository = await repositoryRoot(workingFolder, [userHome]);
  // The chain starts at the repository root, unless the workspace itself is above it (then at the workspace).
  const root = repository !== undefined && isInside(repository, workspace) ? repository : workspace;
  const secretHome = config.secrets.home;
  const configFiles = new Set(config.secrets.config_files.map((file) => file.path));
  const sources: InstructionSources = {
    home: options.home,
    root,
    workingFolder,
    fallbackNames: config.project_doc_fallback_filenames,
    maxBytes,
    refuses: (real) =>
      (secretHome !== "" && isInside(secretHome, real)) || configFiles.has(real) ||
      isSecretLikePath(path.relative(root, real)),
  };
  const files = await loadInstructions(sources);
  const nested = new NestedInstructions(sources);
  return {
    files,
    section: instructionsSection(files, maxBytes),
    maxBytes,
    touched: (paths) => nested.touched(paths),
    sectionFor: async (folder) =>
      instructionsSection(await loadInstructions({ ...sources, workingFolder: folder }), maxBytes),
  };
}
