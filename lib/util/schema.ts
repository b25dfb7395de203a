// A small strict validator: each schema both checks a decoded JSON value and types it.
// Unknown fields at any depth, missing fields, wrong types, unknown tags and out-of-range
// integers all throw DecodeError; the texts follow serde's (`unknown field \`x\``, …).

export class DecodeError extends Error {
  override name = "DecodeError";
}

export interface Schema<T> {
  readonly parse: (value: unknown) => T;
  /** Absent or `null` are accepted and become `null`. */
  readonly optional?: boolean;
  /** Where this schema's value sits in a frame's JSON text (for the frame scanner); absent for scalars. */
  readonly layout?: Layout;
}

/**
 * The shape of a message as a JSON text scanner sees it (lib/host/frame_json.ts): `free` JSON
 * (any value, duplicate keys allowed, as serde_json's `Value` takes them), or a struct or sequence
 * of typed fields. A tagged union's layout holds the fields of every variant.
 */
export interface Layout {
  readonly free: boolean;
  readonly fields: ReadonlyMap<string, Layout>;
  readonly items: Layout | null;
}

const NO_FIELDS: ReadonlyMap<string, Layout> = new Map();
/** A struct position with no known fields (a scalar's place, or an unknown field). */
export const STRUCT_LAYOUT: Layout = { free: false, fields: NO_FIELDS, items: null };
const FREE_LAYOUT: Layout = { free: true, fields: NO_FIELDS, items: null };

function layoutOf(schema: Schema<unknown>): Layout {
  return schema.layout ?? STRUCT_LAYOUT;
}

/** Two layouts of one position (fields of several variants): free wins, fields merge. */
function mergeLayouts(a: Layout, b: Layout): Layout {
  if (a.free || b.free) return FREE_LAYOUT;
  const fields = new Map(a.fields);
  for (const [key, layout] of b.fields) {
    const existing = fields.get(key);
    fields.set(key, existing === undefined ? layout : mergeLayouts(existing, layout));
  }
  const items = a.items === null ? b.items : b.items === null ? a.items : mergeLayouts(a.items, b.items);
  return { free: false, fields, items };
}

function fieldsLayout(shapes: Shape[], tag?: string): Layout {
  let layout: Layout = STRUCT_LAYOUT;
  for (const shape of shapes) {
    const fields = new Map(Object.entries(shape).map(([key, schema]) => [key, layoutOf(schema)]));
    if (tag !== undefined) fields.set(tag, STRUCT_LAYOUT);
    layout = mergeLayouts(layout, { free: false, fields, items: null });
  }
  return layout;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;
type Shape = Record<string, Schema<unknown>>;
export type ObjectOf<S extends Shape> = { [K in keyof S]: Infer<S[K]> };

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a sequence";
  if (typeof value === "object") return "a map";
  if (typeof value === "string") return `string ${JSON.stringify(value)}`;
  if (typeof value === "number")
    return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  if (typeof value === "bigint") return `integer \`${value}\``;
  return `${typeof value} \`${String(value)}\``;
}

/** serde's wording: "`a`", "`a` or `b`", "one of `a`, `b`, `c`". */
function expectedOneOf(names: string[]): string {
  const quoted = names.map((name) => `\`${name}\``);
  if (quoted.length === 0) return "there are no fields";
  if (quoted.length === 1) return `expected ${quoted[0]}`;
  if (quoted.length === 2) return `expected ${quoted[0]} or ${quoted[1]}`;
  return `expected one of ${quoted.join(", ")}`;
}

function invalidType(value: unknown, expected: string): DecodeError {
  return new DecodeError(`invalid type: ${describe(value)}, expected ${expected}`);
}

export const boolean: Schema<boolean> = {
  parse(value) {
    if (typeof value !== "boolean") throw invalidType(value, "a boolean");
    return value;
  },
};

export const string: Schema<string> = {
  parse(value) {
    if (typeof value !== "string") throw invalidType(value, "a string");
    return value;
  },
};

/** Session ids and capabilities: not empty or whitespace-only (`" s "` is valid). */
export const identifier: Schema<string> = {
  parse(value) {
    if (typeof value !== "string") throw invalidType(value, "a string");
    if (value.trim() === "") throw new DecodeError("identifier must not be empty");
    return value;
  },
};

/** Any JSON value, `null` included; the field itself must be present. */
export const json: Schema<unknown> = { parse: (value) => value, layout: FREE_LAYOUT };

function integer(name: string, min: bigint, max: bigint): Schema<bigint> {
  return {
    parse(value) {
      let n: bigint;
      if (typeof value === "bigint") n = value;
      else if (typeof value === "number" && Number.isInteger(value)) n = BigInt(value);
      else throw invalidType(value, name);
      if (n < min || n > max) {
        throw new DecodeError(`invalid value: integer \`${n}\`, expected ${name}`);
      }
      return n;
    },
  };
}

function toNumber(schema: Schema<bigint>): Schema<number> {
  return { parse: (value) => Number(schema.parse(value)) };
}

/** Request and delegate ids: kept as bigint so that all of i64 echoes exactly. */
export const i64: Schema<bigint> = integer("i64", -(2n ** 63n), 2n ** 63n - 1n);
export const u64: Schema<number> = toNumber(integer("u64", 0n, 2n ** 64n - 1n));
export const usize: Schema<number> = toNumber(integer("usize", 0n, 2n ** 64n - 1n));
export const u32: Schema<number> = toNumber(integer("u32", 0n, 2n ** 32n - 1n));
export const i32: Schema<number> = toNumber(integer("i32", -(2n ** 31n), 2n ** 31n - 1n));

/** A schema that accepts absence; `optional` marks it in the type so that object types can make the key optional. */
export type Optional<T> = Schema<T> & { readonly optional: true };

export function optional<T>(schema: Schema<T>): Optional<T | null> {
  return {
    optional: true,
    parse: (value) => (value === null || value === undefined ? null : schema.parse(value)),
    ...(schema.layout === undefined ? {} : { layout: schema.layout }),
  };
}

export function array<T>(item: Schema<T>): Schema<T[]> {
  return {
    layout: { free: false, fields: NO_FIELDS, items: layoutOf(item) },
    parse(value) {
      if (!Array.isArray(value)) throw invalidType(value, "a sequence");
      return value.map((entry) => item.parse(entry));
    },
  };
}

export function oneOf<const V extends string>(...variants: V[]): Schema<V> {
  const allowed = new Set<string>(variants);
  const expected = expectedOneOf(variants);
  return {
    parse(value) {
      if (typeof value !== "string") throw invalidType(value, "a string");
      if (!allowed.has(value)) throw new DecodeError(`unknown variant \`${value}\`, ${expected}`);
      return value as V;
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type Entries = [string, Schema<unknown>][];

/** Checks `record` against `shape` (whose `entries` are precomputed: this runs per frame) into `out`. */
function parseFields(
  shape: Shape,
  entries: Entries,
  record: Record<string, unknown>,
  out: Record<string, unknown>,
  skip?: string,
): void {
  for (const key of Object.keys(record)) {
    if (key !== skip && !Object.hasOwn(shape, key)) {
      throw new DecodeError(`unknown field \`${key}\`, ${expectedOneOf(Object.keys(shape))}`);
    }
  }
  for (const [key, schema] of entries) {
    if (!Object.hasOwn(record, key) && !schema.optional) throw new DecodeError(`missing field \`${key}\``);
    out[key] = schema.parse(record[key]);
  }
}

export function object<S extends Shape>(shape: S): Schema<ObjectOf<S>> {
  const entries = Object.entries(shape);
  return {
    layout: fieldsLayout([shape]),
    parse(value) {
      if (!isRecord(value)) throw invalidType(value, "a struct");
      const out: Record<string, unknown> = {};
      parseFields(shape, entries, value, out);
      return out as ObjectOf<S>;
    },
  };
}

type Tagged<K extends string, V extends Record<string, Shape>> = {
  [T in keyof V & string]: { [P in K]: T } & ObjectOf<V[T]>;
}[keyof V & string];

/** An internally tagged union: `{"<tag>": "<variant>", …fields of that variant}`. */
export function tagged<const K extends string, V extends Record<string, Shape>>(
  tag: K,
  variants: V,
): Schema<Tagged<K, V>> {
  const expected = expectedOneOf(Object.keys(variants));
  const entries = new Map(Object.entries(variants).map(([name, shape]) => [name, Object.entries(shape)]));
  return {
    layout: fieldsLayout(Object.values(variants), tag),
    parse(value) {
      if (!isRecord(value)) throw invalidType(value, "an internally tagged enum");
      if (!Object.hasOwn(value, tag)) throw new DecodeError(`missing field \`${tag}\``);
      const name = value[tag];
      if (typeof name !== "string") throw invalidType(name, "a variant identifier");
      if (!Object.hasOwn(variants, name)) throw new DecodeError(`unknown variant \`${name}\`, ${expected}`);
      const out: Record<string, unknown> = { [tag]: name };
      parseFields(variants[name]!, entries.get(name)!, value, out, tag);
      return out as Tagged<K, V>;
    },
  };
}
