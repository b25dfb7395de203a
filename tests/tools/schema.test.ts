import { describe, expect, it } from "vitest";
import { type ObjectSchema, validateArguments } from "../../lib/tools/schema.ts";

const schema: ObjectSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    mode: { type: "string", enum: ["create", "replace"] },
    count: { type: "integer", minimum: 1, maximum: 10 },
    flag: { type: "boolean" },
  },
  required: ["path"],
  additionalProperties: false,
};

function error(value: unknown, overrides = {}): string {
  const result = validateArguments(schema, value, overrides);
  if (result.ok) throw new Error("expected a validation error");
  return result.error;
}

describe("validateArguments", () => {
  it("accepts a valid object and returns it", () => {
    const value = { path: "a", mode: "create", count: 10, flag: false };
    expect(validateArguments(schema, value)).toEqual({ ok: true, value });
    expect(validateArguments(schema, { path: "" })).toEqual({ ok: true, value: { path: "" } });
  });

  it("requires a JSON object", () => {
    expect(error(null)).toBe("invalid arguments: expected a JSON object, found null");
    expect(error([1])).toBe("invalid arguments: expected a JSON object, found an array");
    expect(error("x")).toBe("invalid arguments: expected a JSON object, found a string");
  });

  it("refuses unknown properties and missing required ones", () => {
    expect(error({ path: "a", extra: 1 })).toBe('invalid arguments: unknown property "extra"');
    expect(error({ mode: "create" })).toBe('invalid arguments: missing required property "path"');
  });

  it("checks types, including integer versus number, and null for optional fields", () => {
    expect(error({ path: 1 })).toBe('invalid arguments: "path" must be a string, found an integer');
    expect(error({ path: "a", count: 1.5 })).toBe('invalid arguments: "count" must be an integer, found a number');
    expect(error({ path: "a", count: "3" })).toBe('invalid arguments: "count" must be an integer, found a string');
    expect(error({ path: "a", flag: "true" })).toBe('invalid arguments: "flag" must be a boolean, found a string');
    expect(error({ path: "a", count: null })).toBe('invalid arguments: "count" must be an integer, found null');
  });

  it("checks enum, minimum and maximum", () => {
    expect(error({ path: "a", mode: "append" })).toBe('invalid arguments: "mode" must be one of "create", "replace"');
    expect(error({ path: "a", count: 0 })).toBe('invalid arguments: "count" must be at least 1');
    expect(error({ path: "a", count: 11 })).toBe('invalid arguments: "count" must be at most 10');
  });

  it("uses a tool's own wording verbatim where given", () => {
    expect(error({ path: "a", count: 0 }, { "count.minimum": "count must be positive" })).toBe(
      "count must be positive",
    );
    expect(error({ path: "a", count: 11 }, { "count.minimum": "count must be positive" })).toBe(
      'invalid arguments: "count" must be at most 10',
    );
  });

  it("does not treat inherited keys as declared properties", () => {
    expect(error(JSON.parse('{"path":"a","constructor":1}'))).toBe('invalid arguments: unknown property "constructor"');
    expect(error(JSON.parse('{"path":"a","__proto__":1}'))).toBe('invalid arguments: unknown property "__proto__"');
  });
});
