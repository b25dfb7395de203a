// Custom commands (issue 30): Markdown files in `$SCV_HOME/commands/` (the user's) and `<workspace>/.scv/commands/`
// (the project's; on a name clash the project's wins). A subfolder gives `folder:name`. The files are prompts, not
// code, so a project's load without trust; links that leave their folder are not followed.
import { lstat, open, readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { isInside } from "../util/path.ts";
import { splitFrontMatter } from "./front_matter.ts";

export type CommandOrigin = "user" | "project";

export type CustomCommand = {
  /** `name`, or `folder:name` for a file in a subfolder. */
  name: string;
  description?: string;
  /** What the arguments are, e.g. `<file> [focus]` (front matter `argument-hint`). */
  argumentHint?: string;
  origin: CommandOrigin;
  /** True when this project command hides a user command of the same name. */
  overrides?: true;
  /** The prompt, with `$ARGUMENTS` and `$1`…`$9` still in it. */
  body: string;
  /** The file it came from. */
  file: string;
};

/** A command file larger than this is skipped (it is a prompt, not a document). */
export const MAX_COMMAND_BYTES = 65_536;
/** At most this many commands per folder tree. */
export const MAX_COMMANDS = 256;
const MAX_DEPTH = 4;
const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export type CommandFolders = { user: string; project?: string; warn?(text: string): void };

/** Every command of both folders, sorted by name; a project command replaces a user command of its name. */
export async function discoverCommands(folders: CommandFolders): Promise<CustomCommand[]> {
  const byName = new Map<string, CustomCommand>();
  for (const command of await commandsIn(folders.user, "user", folders.warn)) byName.set(command.name, command);
  if (folders.project !== undefined) {
    for (const command of await commandsIn(folders.project, "project", folders.warn)) {
      const hidden = byName.has(command.name);
      byName.set(command.name, hidden ? { ...command, overrides: true } : command);
    }
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

async function commandsIn(
  folder: string,
  origin: CommandOrigin,
  warn: ((text: string) => void) | undefined,
): Promise<CustomCommand[]> {
  const root = await realpath(folder).catch(() => undefined);
  if (root === undefined) return [];
  const found: CustomCommand[] = [];
  const walk = async (directory: string, prefix: string[], depth: number): Promise<void> => {
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (found.length >= MAX_COMMANDS) return;
      const full = path.join(directory, entry.name);
      const real = await realpath(full).catch(() => undefined);
      if (real === undefined || !isInside(root, real)) continue;
      const info = await lstat(real).catch(() => undefined);
      if (info?.isDirectory()) {
        if (depth < MAX_DEPTH && NAME_PART.test(entry.name)) await walk(real, [...prefix, entry.name], depth + 1);
        continue;
      }
      if (!info?.isFile() || !entry.name.endsWith(".md")) continue;
      const base = entry.name.slice(0, -3);
      if (!NAME_PART.test(base)) continue;
      if (info.size > MAX_COMMAND_BYTES) {
        warn?.(`command file ${full} is larger than ${MAX_COMMAND_BYTES} bytes; it was skipped`);
        continue;
      }
      const text = await readText(real);
      if (text === undefined) continue;
      const { fields, body } = splitFrontMatter(text);
      found.push({
        name: [...prefix, base].join(":"),
        ...(fields.description ? { description: fields.description } : {}),
        ...(fields["argument-hint"] ? { argumentHint: fields["argument-hint"] } : {}),
        origin,
        body,
        file: full,
      });
    }
  };
  await walk(root, [], 0);
  return found;
}

async function readText(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, "r");
    const buffer = await handle.readFile();
    return new TextDecoder("utf-8", { fatal: true }).decode(buffer);
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
