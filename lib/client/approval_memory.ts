// "Always for this session" approvals (chat and acp), remembered per tool and normalized argument key: object keys are
// sorted, values compared exactly. Strings are never normalized: whitespace inside a quoted shell argument or
// a file's content changes what the call does, so `echo "a  b"` is not approved by approving `echo "a b"`.

import { stripControls } from "../client/index.ts";
import { leadingWords, startsWithWords } from "../tools/index.ts";

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).sort().map((key) => [key, normalize(record[key])]));
  }
  return value;
}

export function approvalKey(name: string, args: unknown): string {
  return `${name}\u0000${JSON.stringify(normalize(args ?? {}))}`;
}

/**
 * What "always" on a `bash` call allows: the command's leading words (`npm test`, `git commit`, `ls`) when it is
 * one simple command the shell-words parser understands, else undefined (then only the exact call is remembered).
 */
export function bashPrefix(args: unknown): string[] | undefined {
  const command = args !== null && typeof args === "object" ? (args as Record<string, unknown>).command : undefined;
  return typeof command === "string" ? leadingWords(command) : undefined;
}

/** What "always" covers for a call, as the question says it after "[a]": `lways allow \`npm test …\` this session`. */
export function alwaysScope(name: string, args: unknown): string {
  const prefix = name === "bash" ? bashPrefix(args) : undefined;
  return prefix === undefined
    ? "lways for this session"
    : `lways allow \`${stripControls(prefix.join(" "))} …\` this session`;
}

export class ApprovalMemory {
  #keys = new Set<string>();
  #bashPrefixes = new Map<string, string[]>();

  remember(name: string, args: unknown): void {
    const prefix = name === "bash" ? bashPrefix(args) : undefined;
    if (prefix !== undefined) this.#bashPrefixes.set(prefix.join("\u0000"), prefix);
    else this.#keys.add(approvalKey(name, args));
  }

  allows(name: string, args: unknown): boolean {
    if (this.#keys.has(approvalKey(name, args))) return true;
    if (name !== "bash" || this.#bashPrefixes.size === 0) return false;
    const command = (args as Record<string, unknown> | null)?.command;
    if (typeof command !== "string") return false;
    // Only a single simple command starting with the words: `npm test; rm -rf x` is not `npm test …`.
    for (const prefix of this.#bashPrefixes.values()) if (startsWithWords(command, prefix)) return true;
    return false;
  }

  get size(): number {
    return this.#keys.size + this.#bashPrefixes.size;
  }

  clear(): void {
    this.#keys.clear();
    this.#bashPrefixes.clear();
  }
}
