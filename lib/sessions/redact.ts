// The one place a journal line is encoded: every record goes through `encodeRecord`, which removes the session's
// secret values (the provider credential, provider header values, search API keys) from the serialised line.
// When lib/util/redact.ts (the shared redactor) lands, it plugs in here.

const REDACTED = "[redacted]";
// Shorter values would redact ordinary words; no real credential is this short.
const MIN_SECRET_CHARS = 4;

/** Secret values as they appear inside a JSON string (escaped), longest first so no secret is half-replaced. */
export function secretPatterns(secrets: readonly (string | undefined)[]): string[] {
  const patterns = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined || secret.trim().length < MIN_SECRET_CHARS) continue;
    patterns.add(JSON.stringify(secret).slice(1, -1));
  }
  return [...patterns].sort((a, b) => b.length - a.length);
}

/** One JSON line (with its `\n`) for `record`, with every secret value replaced by `[redacted]`. */
export function encodeRecord(record: object, patterns: readonly string[]): string {
  let line = JSON.stringify(record);
  for (const pattern of patterns) {
    if (line.includes(pattern)) line = line.split(pattern).join(REDACTED);
  }
  return `${line}\n`;
}
