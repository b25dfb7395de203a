// Which response bodies web_fetch accepts (spec §10 "Body"): HTML, text, or an untyped body
// that sniffs as one of them.

import { completeUtf8Length } from "../../util/text_bounds.ts";

export type BodyKind = "html" | "text";

const TEXT_APPLICATION_TYPES = new Set([
  "json",
  "xml",
  "javascript",
  "ecmascript",
  "x-javascript",
  "toml",
  "yaml",
  "x-yaml",
  "x-ndjson",
  "sql",
  "graphql",
]);

/** The media type: the `Content-Type` value before `;`, trimmed and lowercased ("" when absent). */
export function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return "";
  return contentType.split(";", 1)[0]!.trim().toLowerCase();
}

/** The kind of a declared media type, or undefined when it is not text. */
export function classifyMediaType(type: string): BodyKind | undefined {
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type.startsWith("text/")) return "text";
  if (type.endsWith("+json") || type.endsWith("+xml")) return "text";
  if (type.startsWith("application/") && TEXT_APPLICATION_TYPES.has(type.slice("application/".length))) return "text";
  return undefined;
}

/** The charset parameter of a `Content-Type` value, lowercased, if any. */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match?.[1]?.toLowerCase();
}

const utf8Fatal = new TextDecoder("utf-8", { fatal: true });

/** Sniffs an untyped body: HTML markers in the first 1024 bytes, else UTF-8 (a cut final character allowed). */
export function sniffBody(bytes: Uint8Array): BodyKind | undefined {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString("latin1").toLowerCase();
  if (head.includes("<html") || head.includes("<!doctype html")) return "html";
  try {
    utf8Fatal.decode(bytes.subarray(0, completeUtf8Length(bytes)));
    return "text";
  } catch {
    return undefined;
  }
}
