// The WebSocket listener's bearer token (issue 12, item 8). A listener reachable from other
// machines runs cells for whoever connects, so a non-loopback address requires a token, and a
// loopback one may opt in with `--token-file`. The client presents it on the upgrade request as
// `Authorization: Bearer <token>`; the check compares SHA-256 digests in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { isIP } from "node:net";

/** Shorter tokens are refused: a guessable token is no protection. */
export const MIN_TOKEN_LENGTH = 16;

export class TokenFileError extends Error {
  override name = "TokenFileError";
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped 127.0.0.0/8: only this machine can connect. */
export function isLoopbackAddress(address: string): boolean {
  const host = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (isIP(host) === 4) return host.split(".")[0] === "127";
  if (isIP(host) !== 6) return false;
  // The URL parser writes IPv6 in its canonical form: `::1`, and `::ffff:7f00:1` for ::ffff:127.0.0.1.
  const canonical = new URL(`ws://[${host}]/`).hostname.slice(1, -1);
  return canonical === "::1" || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}

/** 32 random bytes, base64url: what a listener without `--token-file` requires. */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * The token in `path`: its content without surrounding whitespace (a trailing newline is
 * normal), at least MIN_TOKEN_LENGTH visible ASCII characters. `warn` hears about a file other
 * users can read.
 */
export function readTokenFile(path: string, warn: (line: string) => void): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new TokenFileError(`cannot read --token-file \`${path}\`: ${(error as Error).message}`);
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new TokenFileError(`--token-file \`${path}\` holds no token of at least ${MIN_TOKEN_LENGTH} characters`);
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new TokenFileError(`--token-file \`${path}\` must hold one token of visible ASCII characters (no spaces)`);
  }
  try {
    if ((statSync(path).mode & 0o077) !== 0) {
      warn(`warning: --token-file \`${path}\` is readable by group or others; run chmod 600 ${path}`);
    }
  } catch {
    // Read a moment ago; a stat failure now changes nothing about the token.
  }
  return token;
}

/**
 * The token a listener on `host` requires, or `null`: from `tokenFile`, else a generated one for a
 * non-loopback address (`generated`: the caller prints it), else none (loopback, as Codex connects).
 */
export function listenerToken(
  host: string,
  tokenFile: string | undefined,
  warn: (line: string) => void,
): { token: string; generated: boolean } | null {
  if (tokenFile !== undefined) return { token: readTokenFile(tokenFile, warn), generated: false };
  if (isLoopbackAddress(host)) return null;
  return { token: generateToken(), generated: true };
}

/** Checks `Authorization: Bearer <token>` headers against one expected token. */
export class TokenCheck {
  readonly #digest: Buffer;

  constructor(token: string) {
    this.#digest = digest(token);
  }

  /** True when `header` (the request's Authorization value, if any) carries the token. */
  accepts(header: string | string[] | undefined): boolean {
    // Several Authorization headers are ambiguous: refused.
    if (typeof header !== "string") return false;
    const match = /^bearer +(\S+) *$/i.exec(header);
    // Digests of equal length whatever was sent, so that the comparison takes the same time.
    const presented = digest(match?.[1] ?? "");
    return timingSafeEqual(presented, this.#digest) && match !== null;
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
