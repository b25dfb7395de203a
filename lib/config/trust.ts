// Trusted folders (issue 30), with Codex's key: `[projects."<path>"] trust_level = "trusted"` in the user file.
// Hooks are code, so a project's hooks run only in a folder the user trusts; the nearest listed folder at or above
// the workspace decides. `setTrust` edits the user file's text so its comments and layout stay as written.
import { mkdir, realpath } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parse } from "smol-toml";
import { readForEdit, writeAtomically } from "./atomic_write.ts";
import { withFileLock } from "./file_lock.ts";
import { expandTilde } from "./home.ts";
import { isTable, type RawTable } from "./schema.ts";
import { ConfigError, type ProjectTrust } from "./types.ts";

export type TrustLevel = ProjectTrust["trust_level"];

/** `[projects]` of a trusted layer, keyed by real path (a path that does not exist stays as written, resolved). */
export async function projectsOf(
  table: RawTable | undefined,
  env: Record<string, string | undefined>,
): Promise<Record<string, ProjectTrust>> {
  const projects = isTable(table?.projects) ? table.projects : {};
  const out: Record<string, ProjectTrust> = {};
  for (const [path, raw] of Object.entries(projects)) {
    if (!isTable(raw) || (raw.trust_level !== "trusted" && raw.trust_level !== "untrusted")) continue;
    const absolute = resolve(expandTilde(path, env));
    out[await realpath(absolute).catch(() => absolute)] = { trust_level: raw.trust_level };
  }
  return out;
}

/** The trust of `folder` (a real path): that of the nearest listed folder at or above it, or undefined. */
export function trustLevel(projects: Record<string, ProjectTrust>, folder: string): TrustLevel | undefined {
  let current = folder;
  for (;;) {
    const entry = Object.hasOwn(projects, current) ? projects[current] : undefined;
    if (entry !== undefined) return entry.trust_level;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

const PROJECT_HEADER =
  /^[ \t]*\[[ \t]*projects[ \t]*\.[ \t]*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)[ \t]*\][ \t]*(?:#.*)?$/;
const ANY_HEADER = /^[ \t]*\[/;
const TRUST_KEY = /^([ \t]*trust_level[ \t]*=[ \t]*)("[^"]*"|'[^']*')(.*)$/;

/**
 * Sets `[projects."<folder>"] trust_level` in the user file `path`, creating the file (0600) and its folder when
 * missing; an existing file keeps its mode, comments and layout and is replaced atomically. The result is parsed
 * again before it is written: a file this cannot edit safely is left alone, with an error saying what to add.
 */
export function setTrust(path: string, folder: string, level: TrustLevel): Promise<void> {
  // The same lock as "always" answers: two sessions editing the user file at once must not lose a change.
  return withFileLock(path, () => setTrustUnlocked(path, folder, level));
}

async function setTrustUnlocked(path: string, folder: string, level: TrustLevel): Promise<void> {
  const { text, mode } = await readForEdit(path);
  const edited = withTrust(text ?? "", folder, level);
  let parsed: RawTable;
  try {
    parsed = parse(edited) as RawTable;
  } catch {
    throw new ConfigError(`cannot record trust in ${path}: the file is not valid TOML; fix it first`);
  }
  const projects = isTable(parsed.projects) ? parsed.projects : {};
  const entry = Object.hasOwn(projects, folder) ? projects[folder] : undefined;
  if (!isTable(entry) || entry.trust_level !== level) {
    throw new ConfigError(
      `cannot record trust in ${path}: add [projects.${JSON.stringify(folder)}] trust_level = "${level}" by hand`,
    );
  }
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeAtomically(path, edited, mode);
}

/** `text` with the folder's `trust_level` set: the existing line changed, or the key or table added. */
export function withTrust(text: string, folder: string, level: TrustLevel): string {
  const value = JSON.stringify(level);
  const lines = text.split("\n");
  const header = lines.findIndex((line) => headerKey(line) === folder);
  if (header < 0) {
    const separator = text === "" || text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n";
    return `${text}${separator}[projects.${JSON.stringify(folder)}]\ntrust_level = ${value}\n`;
  }
  let end = lines.length;
  for (let index = header + 1; index < lines.length; index += 1) {
    if (ANY_HEADER.test(lines[index]!)) {
      end = index;
      break;
    }
  }
  for (let index = header + 1; index < end; index += 1) {
    const match = TRUST_KEY.exec(lines[index]!);
    if (match) {
      lines[index] = `${match[1]}${value}${match[3]}`;
      return lines.join("\n");
    }
  }
  lines.splice(header + 1, 0, `trust_level = ${value}`);
  return lines.join("\n");
}

/** The folder a `[projects.<key>]` header names, or undefined for any other line. */
function headerKey(line: string): string | undefined {
  const match = PROJECT_HEADER.exec(line);
  if (!match) return undefined;
  const key = match[1]!;
  if (key.startsWith('"')) {
    try {
      return JSON.parse(key) as string;
    } catch {
      return undefined;
    }
  }
  return key.startsWith("'") ? key.slice(1, -1) : key;
}
