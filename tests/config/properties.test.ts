// Properties of the pure helpers: deep merge (§7.1) and the auto_approve_domains host rule (§7.2).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepMerge } from "../../lib/config/merge.ts";
import { isTable, type RawTable } from "../../lib/config/schema.ts";
import { isHostPattern } from "../../lib/config/validate.ts";

const key = fc.constantFrom("a", "b", "c", "d");
const scalar = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.string({ maxLength: 4 }),
  fc.array(fc.integer(), { maxLength: 3 }),
);
const { table } = fc.letrec<{ table: RawTable; value: unknown }>((tie) => ({
  table: fc.dictionary(key, tie("value"), { maxKeys: 4 }) as fc.Arbitrary<RawTable>,
  value: fc.oneof({ depthSize: "small" }, scalar, tie("table")),
}));

describe("deepMerge", () => {
  it("overlay scalars and arrays win, tables merge, base-only keys survive, inputs are untouched", () => {
    fc.assert(
      fc.property(table, table, (base, overlay) => {
        const baseCopy = structuredClone(base);
        const overlayCopy = structuredClone(overlay);
        const merged = deepMerge(base, overlay);
        expect(base).toEqual(baseCopy);
        expect(overlay).toEqual(overlayCopy);
        for (const [k, v] of Object.entries(overlay)) {
          if (isTable(v) && isTable(base[k])) expect(merged[k]).toEqual(deepMerge(base[k] as RawTable, v));
          else expect(merged[k]).toEqual(v);
        }
        for (const [k, v] of Object.entries(base)) {
          if (!(k in overlay)) expect(merged[k]).toEqual(v);
        }
        expect(deepMerge(merged, overlay)).toEqual(merged);
      }),
    );
  });
});

describe("isHostPattern", () => {
  const alnum = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
  const label = fc
    .tuple(alnum, fc.array(fc.oneof(alnum, fc.constant("-")), { maxLength: 20 }), alnum)
    .map(([first, middle, last]) => first + middle.join("") + last);
  const host = fc.array(label, { minLength: 1, maxLength: 5 }).map((labels) => labels.join("."));

  it("accepts host names, with or without a *. prefix", () => {
    fc.assert(
      fc.property(host, fc.boolean(), (name, wildcard) => {
        expect(isHostPattern(wildcard ? `*.${name}` : name)).toBe(true);
      }),
    );
  });

  it("refuses a host with a character outside [A-Za-z0-9-.] anywhere", () => {
    const bad = fc.constantFrom("_", "/", ":", " ", "@", "*", "é");
    fc.assert(
      fc.property(host, bad, fc.nat(), (name, character, at) => {
        const index = at % (name.length + 1);
        expect(isHostPattern(name.slice(0, index) + character + name.slice(index))).toBe(false);
      }),
    );
  });

  it("refuses labels starting or ending with - and empty labels", () => {
    fc.assert(
      fc.property(host, (name) => {
        expect(isHostPattern(`-${name}`)).toBe(false);
        expect(isHostPattern(`${name}-`)).toBe(false);
        expect(isHostPattern(`${name}..x`)).toBe(false);
        expect(isHostPattern(`.${name}`)).toBe(false);
      }),
    );
  });
});
