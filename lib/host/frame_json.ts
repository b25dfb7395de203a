// The host's parser for client frames (the codec's parse hook). Before JSON.parse, one
// iterative scan of the text, guided by the message schema's layout, enforces what JSON.parse
// cannot see and the reference host (serde_json) rejects:
// - nesting deeper than serde_json's recursion limit (127 containers) is a decode error, so that
//   nothing downstream (catalog equality, structured clone, JSON.stringify) walks a
//   20,000-deep value;
// - a duplicate key in a typed struct is a decode error (`duplicate field \`id\``); inside free
//   JSON (`input_schema`, a tool result) duplicates stay allowed, last one wins, as in serde_json;
// - integers at typed positions beyond 2^53 keep their exact value (as bigint) for i64 ids,
//   while numbers inside free JSON stay plain numbers, as the reference's `Value` gives them.
import { clientMessage } from "./protocol.ts";
import { type Layout, STRUCT_LAYOUT } from "./schema.ts";

/** serde_json's default recursion limit: the 128th nested container is an error. */
export const MAX_NESTING = 127;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Integers with more digits than this may lie beyond 2^53. */
const SAFE_DIGITS = 15;
/** Past this many keys an object's keys move from an array to a Set (no quadratic scan). */
const SMALL_OBJECT_KEYS = 16;
/** A message has one or two i64 fields; beyond this many, the rest fail validation anyway. */
const MAX_EXACT_INTEGERS = 64;

interface Container {
  readonly layout: Layout;
  /** Keys seen so far (objects only): an array for the handful a struct has, then a Set. */
  keys: string[] | Set<string> | null;
  /** The current key (objects) or index (arrays). */
  key: string | number;
}

interface ExactInteger {
  path: (string | number)[];
  source: string;
}

/** Parses a client frame's JSON text under the rules above; throws with serde_json's wording. */
export function parseClientFrame(text: string, root: Layout = clientMessage.layout ?? STRUCT_LAYOUT): unknown {
  const exact = scan(text, root);
  const value: unknown = JSON.parse(text);
  for (const integer of exact) setAt(value, integer.path, BigInt(integer.source));
  return value;
}

/**
 * Checks nesting and duplicate struct keys and collects long integers at typed positions.
 * Invalid JSON is not reported here: the scan stops or passes over it, and JSON.parse reports it.
 */
function scan(text: string, root: Layout): ExactInteger[] {
  const exact: ExactInteger[] = [];
  const stack: Container[] = [];
  const length = text.length;
  let expectKey = false;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return exact;
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const key = decodeKey(text, i, end);
        if (key === null) return exact;
        if (seen(top, key)) throw new Error(`duplicate field \`${key}\``);
        top.key = key;
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const layout = childLayout(stack, root);
      const depth = stack.length + 1;
      if (depth > MAX_NESTING) throw recursionLimit(text, i);
      if (layout.free) {
        i = skipFree(text, i, depth);
        if (i < 0) return exact;
        continue;
      }
      const isObject = c === OPEN_BRACE;
      stack.push({ layout, keys: isObject ? [] : null, key: isObject ? "" : 0 });
      expectKey = isObject;
      i++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (stack.pop() === undefined) return exact;
      expectKey = false;
      i++;
    } else if (c === COMMA) {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.key = (top.key as number) + 1;
      i++;
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      let end = i + 1;
      while (end < length && isNumberChar(text.charCodeAt(end))) end++;
      const top = stack[stack.length - 1];
      // i64 positions are struct fields, never sequence items.
      if (end - i > SAFE_DIGITS && top?.keys && exact.length < MAX_EXACT_INTEGERS && !childLayout(stack, root).free) {
        const source = text.slice(i, end);
        if (/^-?\d+$/.test(source) && !Number.isSafeInteger(Number(source))) {
          exact.push({ path: stack.map((container) => container.key), source });
        }
      }
      i = end;
    } else {
      i++;
    }
  }
  return exact;
}

/** Records `key` in `container`; true if it was there already. */
function seen(container: Container, key: string): boolean {
  const keys = container.keys!;
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return true;
    keys.push(key);
    if (keys.length > SMALL_OBJECT_KEYS) container.keys = new Set(keys);
    return false;
  }
  if (keys.has(key)) return true;
  keys.add(key);
  return false;
}

function childLayout(stack: Container[], root: Layout): Layout {
  const top = stack[stack.length - 1];
  if (top === undefined) return root;
  if (top.keys) return top.layout.fields.get(top.key as string) ?? STRUCT_LAYOUT;
  return top.layout.items ?? STRUCT_LAYOUT;
}

/** Skips a free container opening at `start` (at nesting `depth`); returns the index after it, or -1. */
function skipFree(text: string, start: number, depth: number): number {
  const length = text.length;
  let level = depth;
  let i = start + 1;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++level > MAX_NESTING) throw recursionLimit(text, i);
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--level < depth) return i + 1;
    }
    i++;
  }
  return -1;
}

/** The index after the string opening at `start`, or -1 if it never closes. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let before = quote - 1;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    // An even run of backslashes escapes itself, not the quote.
    if ((quote - 1 - before) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

function decodeKey(text: string, start: number, end: number): string | null {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes("\\")) return raw;
  try {
    return JSON.parse(text.slice(start, end)) as string;
  } catch {
    return null;
  }
}

function isNumberChar(c: number): boolean {
  return (c >= DIGIT_0 && c <= DIGIT_9) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;
}

/** serde_json's error, positioned at the container that went one level too deep. */
function recursionLimit(text: string, index: number): Error {
  const lineStart = text.lastIndexOf("\n", index - 1) + 1;
  let line = 1;
  for (let at = text.indexOf("\n"); at >= 0 && at < index; at = text.indexOf("\n", at + 1)) line++;
  // serde_json counts columns in bytes.
  const column = new TextEncoder().encode(text.slice(lineStart, index + 1)).length;
  return new Error(`recursion limit exceeded at line ${line} column ${column}`);
}

function setAt(value: unknown, path: (string | number)[], replacement: unknown): void {
  // A bare number as the whole frame is not a message; the schema rejects it either way.
  if (path.length === 0) return;
  let holder = value as Record<string | number, unknown>;
  for (let index = 0; index < path.length - 1; index++) {
    const key = path[index]!;
    if (!Object.hasOwn(holder, key)) return;
    const next = holder[key];
    if (typeof next !== "object" || next === null) return;
    holder = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1]!;
  if (Object.hasOwn(holder, last)) holder[last] = replacement;
}
