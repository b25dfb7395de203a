// Which instruction files a session reads, Codex's way: `$SCV_HOME/AGENTS.md` (global), then every folder from the
// repository root down to the working folder, each contributing `AGENTS.override.md` if present, else `AGENTS.md`,
// else the first of `project_doc_fallback_filenames`. `project_doc_max_bytes` bounds their total; a file past the
// budget is cut or left out, and says so.
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { isInside } from "../util/path.ts";
import { readInstruction } from "./read_instruction.ts";

export const OVERRIDE_NAME = "AGENTS.override.md";
export const INSTRUCTIONS_NAME = "AGENTS.md";

/** `global`: the user's own file in the instance home; `project`: the folder chain; `nested`: joined on first touch. */
export type InstructionScope = "global" | "project" | "nested";

export type InstructionFile = {
  /** The path it was found under (absolute). */
  path: string;
  scope: InstructionScope;
  /** Bytes of it in the context. */
  bytes: number;
  /** The file's whole size. */
  size: number;
  /** True when `project_doc_max_bytes` cut it (or left it out: then `bytes` is 0). */
  truncated: boolean;
  text: string;
};

export type InstructionSources = {
  /** The instance home: its AGENTS.md is the user's global file. */
  home: string;
  /** The repository root (real path): the first folder of the chain, and the bound every project file must resolve inside. */
  root: string;
  /** The folder the user works in (real path, the root or below it): the last folder of the chain. */
  workingFolder: string;
  /** `project_doc_fallback_filenames`: names read where a folder has no AGENTS.md. */
  fallbackNames: readonly string[];
  /** `project_doc_max_bytes`. */
  maxBytes: number;
  /** True for a real path no instruction may come from (the instance home, a secret-like file). */
  refuses?(real: string): boolean;
};

/** The instruction files of a session's start, in the order they go into the prompt. */
export async function loadInstructions(sources: InstructionSources): Promise<InstructionFile[]> {
  const files: InstructionFile[] = [];
  let budget = sources.maxBytes;
  const take = (found: InstructionFile | undefined) => {
    if (found === undefined) return;
    files.push(found);
    // A cut file used the budget up (a character that did not fit may leave a byte or three).
    budget = found.truncated ? 0 : budget - found.bytes;
  };
  take(await firstOf([join(sources.home, OVERRIDE_NAME), join(sources.home, INSTRUCTIONS_NAME)], "global", budget));
  for (const folder of chain(sources.root, sources.workingFolder)) {
    take(await folderFile(folder, sources, "project", budget));
  }
  return files;
}

/** The folders from `root` down to `workingFolder`, both included (just the root when the folder is not below it). */
export function chain(root: string, workingFolder: string): string[] {
  const below = relative(root, workingFolder);
  if (!isBelow(below)) return [root];
  const folders = [root];
  let current = root;
  for (const part of below.split(sep)) {
    current = join(current, part);
    folders.push(current);
  }
  return folders;
}

/** The one instruction file of `folder` (override, AGENTS.md, then the fallback names), read within `budget`. */
export function folderFile(
  folder: string,
  sources: InstructionSources,
  scope: InstructionScope,
  budget: number,
): Promise<InstructionFile | undefined> {
  const names = [OVERRIDE_NAME, INSTRUCTIONS_NAME, ...sources.fallbackNames];
  const accept = (real: string) => isInside(sources.root, real) && !(sources.refuses?.(real) ?? false);
  return firstOf(names.map((name) => join(folder, name)), scope, budget, accept);
}

async function firstOf(
  candidates: readonly string[],
  scope: InstructionScope,
  budget: number,
  accept: (real: string) => boolean = () => true,
): Promise<InstructionFile | undefined> {
  for (const path of candidates) {
    const read = await readInstruction(path, budget, accept);
    if (read === undefined) continue;
    // An empty file is there but says nothing: the folder contributes nothing, and the fallbacks are not read.
    if (read.size === 0) return undefined;
    return { path, scope, bytes: read.bytes, size: read.size, truncated: read.bytes < read.size, text: read.text };
  }
  return undefined;
}

/** The folders strictly below `workingFolder` on the way to `path` (a file, or a folder when `isFolder`). */
export function foldersBelow(workingFolder: string, path: string, isFolder: boolean): string[] {
  const target = isFolder ? path : dirname(path);
  if (!isBelow(relative(workingFolder, target))) return [];
  return chain(workingFolder, target).slice(1);
}

/** True for a relative path that goes down (not empty, not up, not to another root); `..notes` is a name. */
function isBelow(relativePath: string): boolean {
  return relativePath !== "" && relativePath !== ".." && !relativePath.startsWith(`..${sep}`) &&
    !isAbsolute(relativePath);
}
