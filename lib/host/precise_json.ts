// JSON parsing that keeps integers beyond 2^53 exact (as bigint), so that i64 request and
// delegate ids echo exactly (host spec §3.1). Meant as the frame codec's payload parser:
// the plain JSON.parse runs unless the text holds a run of 16+ digits.

const LONG_DIGITS = /\d{16}/;
const INTEGER = /^-?\d+$/;

interface ReviverContext {
  source?: string;
}

function preciseIntegers(this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value === "number" && !Number.isSafeInteger(value) && context?.source !== undefined && INTEGER.test(context.source)) {
    return BigInt(context.source);
  }
  return value;
}

export function parsePreciseJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return JSON.parse(text, preciseIntegers as (key: string, value: unknown) => unknown);
}
