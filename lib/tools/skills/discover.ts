// Skill discovery (spec §9 `read_skill`): `<workspace>/<project_dir>/<name>/SKILL.md`, then
// `<user_dir>/<name>/SKILL.md`; the project wins, names sorted, at most `max_skills`, and each
// file must stay inside its root once every symlink is resolved.

import { open, readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { TextDecoder } from "node:util";
import type { ResolvedConfig } from "../../config/index.ts";
import { completeUtf8Length } from "../../util/text_bounds.ts";
import { isInside } from "../../util/path.ts";
import { NO_DESCRIPTION, skillDescription } from "./description.ts";

export type Skill = {
  name: string;
  description: string;
  /** The canonical root the skill was found in. */
  root: string;
  /** `<root>/<name>/SKILL.md` as found (not resolved: read_skill resolves it again). */
  path: string;
};

export type DiscoverOptions = { warn?: (text: string) => void };

const DESCRIPTION_SCAN_BYTES = 65_536;
const utf8 = new TextDecoder("utf-8", { fatal: true });

export async function discoverSkills(
  config: ResolvedConfig,
  workspace: string,
  options: DiscoverOptions = {},
): Promise<Skill[]> {
  const warn = options.warn ?? ((text: string) => process.stderr.write(`${text}\n`));
  const roots: string[] = [];
  if (config.skills.scan_projects) {
    const projectRoot = await canonicalRoot(join(workspace, config.skills.project_dir));
    const canonicalWorkspace = await realpath(workspace).catch(() => workspace);
    if (projectRoot !== undefined) {
      if (isInside(canonicalWorkspace, projectRoot)) roots.push(projectRoot);
      else warn(
          `warning: skills.project_dir ${config.skills.project_dir} resolves outside the workspace; its skills are ignored`,
        );
    }
  }
  const userRoot = await canonicalRoot(config.skills.user_dir);
  if (userRoot !== undefined && !roots.includes(userRoot)) roots.push(userRoot);

  const byName = new Map<string, Skill>();
  for (const root of roots) {
    for (const skill of await skillsIn(root, config.skills.max_skill_bytes, warn)) {
      if (!byName.has(skill.name)) byName.set(skill.name, skill);
    }
  }
  return [...byName.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, config.skills.max_skills);
}

async function canonicalRoot(path: string): Promise<string | undefined> {
  try {
    const resolved = await realpath(path);
    return (await stat(resolved)).isDirectory() ? resolved : undefined;
  } catch {
    return undefined;
  }
}

async function skillsIn(root: string, maxBytes: number, warn: (text: string) => void): Promise<Skill[]> {
  let names: string[];
  try {
    names = (await readdir(root, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => entry.name)
      .filter(isSkillName);
  } catch {
    return [];
  }
  const skills: Skill[] = [];
  for (const name of names) {
    const path = join(root, name, "SKILL.md");
    const checked = await resolveInside(root, path);
    if (checked === "missing") continue;
    if (checked === "escaped") {
      warn(`warning: skill ${name} is ignored: skill path escaped its configured root`);
      continue;
    }
    // The description comes from the front matter or the first lines; the rest is not needed.
    const head = await readHead(checked, Math.min(maxBytes, DESCRIPTION_SCAN_BYTES)).catch(() => undefined);
    if (head === undefined) continue;
    skills.push({ name, description: describe(head), root, path });
  }
  return skills;
}

function describe(bytes: Buffer): string {
  try {
    return skillDescription(utf8.decode(bytes.subarray(0, completeUtf8Length(bytes))));
  } catch {
    return NO_DESCRIPTION;
  }
}

/** Names that read well in the prompt: no hidden entries, no control characters or slashes. */
export function isSkillName(name: string): boolean {
  return name !== "" && !name.startsWith(".") && name.trim() === name && !/[\u0000-\u001f\u007f/\\]/.test(name);
}

/** The canonical path of `path` if it is a regular file inside `root`, else why not. */
export async function resolveInside(root: string, path: string): Promise<string | "missing" | "escaped"> {
  let resolved: string;
  try {
    resolved = await realpath(path);
  } catch {
    return "missing";
  }
  if (!isInside(root, resolved)) return "escaped";
  try {
    return (await stat(resolved)).isFile() ? resolved : "missing";
  } catch {
    return "missing";
  }
}

/** At most `maxBytes + 1` bytes, so that callers can tell whether the file was longer. */
export async function readHead(path: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
