// Secret redaction shared by the provider's error texts and the tools' output: every known secret value
// becomes `[REDACTED]`, also when it appears percent-encoded (any mix of encoded and plain bytes, either
// hex case, `+` for a space), JSON-escaped, or base64-encoded (standard or URL-safe alphabet, at any of
// the three byte alignments, so `Basic base64(user:key)` is caught too).

export const REDACTED = "[REDACTED]";

/** By default shorter values are not redacted: they would match ordinary text everywhere. */
export const MIN_SECRET_CHARS = 6;

export type RedactOptions = {
  /** Values shorter than this are left alone (default MIN_SECRET_CHARS); base64 forms always need 6. */
  minChars?: number;
};

export type Redactor = (text: string) => string;

const identity: Redactor = (text) => text;
const cache = new Map<string, Redactor>();

/** Redacts `values` from `text` (a one-off; for repeated use build a redactor with createRedactor). */
export function redactSecrets(text: string, values: readonly string[], options: RedactOptions = {}): string {
  const key = JSON.stringify([options.minChars, values]);
  let redactor = cache.get(key);
  if (redactor === undefined) {
    redactor = createRedactor(values, options);
    if (cache.size > 32) cache.clear();
    cache.set(key, redactor);
  }
  return redactor(text);
}

/**
 * Plain forms (the value, its JSON escape, its base64 cores) are found with `includes` (fast, and the common
 * case is that nothing matches); percent-encoded forms with one regular expression, run only when the text
 * has a `%` (or a `+`, for values with a space).
 */
export function createRedactor(values: readonly string[], options: RedactOptions = {}): Redactor {
  const minChars = Math.max(1, options.minChars ?? MIN_SECRET_CHARS);
  const secrets = [...new Set(values.filter((value) => value.trim().length >= minChars))];
  if (secrets.length === 0) return identity;
  const literals = new Set<string>();
  const encoded: string[] = [];
  for (const secret of secrets) {
    literals.add(secret);
    literals.add(JSON.stringify(secret).slice(1, -1));
    for (const core of base64Cores(secret)) literals.add(core);
    encoded.push(percentPattern(secret));
  }
  // Longest first, so a longer form is not cut short by a shorter one inside it.
  const plain = [...literals].sort((a, b) => b.length - a.length);
  const percent = new RegExp(encoded.sort((a, b) => b.length - a.length).join("|"), "g");
  const plus = secrets.some((secret) => secret.includes(" "));
  return (text) => {
    if (text.length === 0) return text;
    let out = text;
    for (const literal of plain) if (out.includes(literal)) out = out.split(literal).join(REDACTED);
    if (out.includes("%") || (plus && out.includes("+"))) out = out.replace(percent, REDACTED);
    return out;
  };
}

/** Each UTF-8 byte of the value as itself (when printable ASCII) or as `%XX` in either case; `+` for a space. */
function percentPattern(secret: string): string {
  let source = "";
  for (const byte of Buffer.from(secret, "utf8")) {
    const hex = byte.toString(16).toUpperCase().padStart(2, "0");
    const encoded = `%${caseless(hex[0]!)}${caseless(hex[1]!)}`;
    if (byte >= 0x20 && byte < 0x7f) {
      const plain = escapeRegExp(String.fromCharCode(byte));
      source += byte === 0x20 ? `(?: |\\+|${encoded})` : `(?:${plain}|${encoded})`;
    } else {
      source += encoded;
    }
  }
  // Non-ASCII characters stay literal too (a byte-wise pattern cannot match a UTF-16 code unit).
  return /^[\x00-\x7f]*$/.test(secret) ? source : `(?:${source}|${escapeRegExp(secret)})`;
}

function caseless(digit: string): string {
  return /[A-F]/.test(digit) ? `[${digit}${digit.toLowerCase()}]` : digit;
}

/**
 * The part of base64(prefix + secret + suffix) that depends only on the secret, for each of the three
 * prefix lengths modulo 3, in both alphabets: the characters whose 6 bits all come from the secret.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift += 1) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const text = padded.toString("base64").replace(/=+$/, "");
    // A character is clean when its 6-bit group starts at or after the secret's first bit and ends by
    // its last full bit; the prefix spoils the leading characters, and the unknown suffix the last one.
    const first = Math.ceil((shift * 8) / 6);
    const last = Math.floor((padded.length * 8) / 6);
    const core = text.slice(first, last);
    if (core.length < MIN_SECRET_CHARS) continue;
    cores.push(core);
    const urlSafe = core.replace(/\+/g, "-").replace(/\//g, "_");
    if (urlSafe !== core) cores.push(urlSafe);
  }
  return cores;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
