// The one place a journal line is encoded: every record goes through `encodeRecord`, which removes the session's
// secret values (the provider credential and every configured secret, in any of the forms the shared redactor
// knows: plain, JSON-escaped, percent- or base64-encoded) from the serialised line.
import { createRedactor, type Redactor } from "../util/redact.ts";

export type { Redactor };

/** The redactor for a session's secret values. */
export function secretRedactor(secrets: readonly (string | undefined)[]): Redactor {
  return createRedactor(secrets.filter((secret): secret is string => typeof secret === "string"));
}

const plain: Redactor = (text) => text;

/** One JSON line (with its `\n`) for `record`, with every secret value replaced by `[REDACTED]`. */
export function encodeRecord(record: object, redact: Redactor = plain): string {
  return `${redact(JSON.stringify(record))}\n`;
}
