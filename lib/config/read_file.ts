// Reading one configuration file: permission rule (before any byte is read), 1 MiB cap,
// fatal UTF-8 decoding and TOML parsing whose errors give the line but never its text.
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { parse, TomlError } from "smol-toml";
import { ConfigError } from "./types.ts";
import { checkAgainstSchema, type RawTable } from "./schema.ts";
import { describeFsError } from "./fs_error.ts";
import { describeTomlError } from "./toml_error.ts";

export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Which permission rule applies: the user and explicit layers refuse group/other access. */
export type PermissionRule = "user" | "explicit" | "none";

export interface LoadedFile {
  table: RawTable;
  dev: number;
  ino: number;
}

/** The spec's exact text, completed with the file so the command can be pasted as it is. */
const PERMISSION_MESSAGES: Record<Exclude<PermissionRule, "none">, string> = {
  user: "user configuration is readable by group or others; run chmod 600",
  explicit: "explicit configuration is readable by group or others; run chmod 600",
};

function permissionMessage(rule: Exclude<PermissionRule, "none">, display: string): string {
  return `${PERMISSION_MESSAGES[rule]} ${shellQuote(display)}`;
}

function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/**
 * Reads, decodes, parses and schema-checks one file. `display` is the path named in messages;
 * `openPath` (default `display`) is the path opened. Returns undefined when `optional` and missing.
 */
export async function readConfigFile(
  display: string,
  rule: PermissionRule,
  options: { optional: boolean; openPath?: string },
): Promise<LoadedFile | undefined> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK keeps a FIFO from blocking the open; it is refused below as not a regular file.
    handle = await open(options.openPath ?? display, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (options.optional && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigError(`read configuration ${display}: ${describeFsError(error)}`);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new ConfigError(`read configuration ${display}: is a directory`);
    if (!stats.isFile()) throw new ConfigError(`read configuration ${display}: not a regular file`);
    if (rule !== "none" && (stats.mode & 0o077) !== 0) throw new ConfigError(permissionMessage(rule, display));
    if (stats.size > MAX_CONFIG_BYTES) throw new ConfigError(`configuration ${display} exceeds 1 MiB`);
    const bytes = await readCapped(handle, display);
    const text = decodeUtf8(bytes, display);
    return { table: checkAgainstSchema(parseToml(text, display), display), dev: stats.dev, ino: stats.ino };
  } finally {
    await handle.close();
  }
}

async function readCapped(handle: FileHandle, display: string): Promise<Uint8Array> {
  // Read at most one byte past the cap so a file that grew after fstat is still refused.
  const buffer = new Uint8Array(MAX_CONFIG_BYTES + 1);
  let length = 0;
  try {
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
  } catch (error) {
    throw new ConfigError(`read configuration ${display}: ${describeFsError(error)}`);
  }
  if (length > MAX_CONFIG_BYTES) throw new ConfigError(`configuration ${display} exceeds 1 MiB`);
  return buffer.subarray(0, length);
}

function decodeUtf8(bytes: Uint8Array, display: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ConfigError(`parse configuration ${display}: invalid UTF-8 at line ${firstInvalidUtf8Line(bytes)}`);
  }
}

/** UTF-8 never uses 0x0A inside a multi-byte sequence, so lines can be checked one by one. */
function firstInvalidUtf8Line(bytes: Uint8Array): number {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let line = 1;
  let start = 0;
  for (let index = 0; index <= bytes.length; index++) {
    if (index === bytes.length || bytes[index] === 0x0a) {
      try {
        decoder.decode(bytes.subarray(start, index));
      } catch {
        return line;
      }
      line++;
      start = index + 1;
    }
  }
  return line - 1;
}

function parseToml(text: string, display: string): RawTable {
  try {
    return parse(text, { integersAsBigInt: true }) as RawTable;
  } catch (error) {
    if (error instanceof TomlError) {
      // smol-toml appends a code block quoting the offending lines; keep only its fixed description.
      const description = /^Invalid TOML document: ([^\n]*)/.exec(error.message)?.[1] ?? "invalid TOML";
      throw new ConfigError(
        `parse configuration ${display}: ${describeTomlError(text, description, error.line, error.column)}`,
      );
    }
    throw new ConfigError(`parse configuration ${display}: invalid TOML`);
  }
}
