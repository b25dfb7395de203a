// JSON parsing that keeps every integer beyond 2^53 exact (as bigint), anywhere in the value:
// for clients reading host frames (tests, benchmarks), whose ids are i64. The host itself parses
// client frames with frame_json.ts, which keeps only typed positions exact. The plain JSON.parse
// runs unless the text holds a run of 16+ digits.

const LONG_DIGITS = /\d{16}/;
const INTEGER = /^-?\d+$/;

interface ReviverContext {
  source?: string;
}

function preciseIntegers(this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
  if (
    typeof value === "number" && !Number.isSafeInteger(value) && context?.source !== undefined &&
    INTEGER.test(context.source)
  ) {
    return BigInt(context.source);
  }
  return value;
}

export function parsePreciseJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  return JSON.parse(text, preciseIntegers as (key: string, value: unknown) => unknown);
}
