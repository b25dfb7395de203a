// The strict validator and the client message schema, in process (wording follows serde's).
import { describe, expect, test } from "vitest";
import { clientMessage } from "../../lib/host/protocol.ts";
import {
  array,
  DecodeError,
  i32,
  i64,
  identifier,
  object,
  oneOf,
  optional,
  string,
  tagged,
  u32,
  u64,
} from "../../lib/host/schema.ts";

function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DecodeError);
    return (error as Error).message;
  }
  throw new Error("expected a DecodeError");
}

describe("schema", () => {
  test("integers check their ranges and types", () => {
    expect(i64.parse(-5)).toBe(-5n);
    expect(i64.parse(2n ** 63n - 1n)).toBe(2n ** 63n - 1n);
    expect(failure(() => i64.parse(2.5))).toBe("invalid type: floating point `2.5`, expected i64");
    expect(failure(() => i64.parse("2"))).toBe('invalid type: string "2", expected i64');
    expect(failure(() => i64.parse(2n ** 63n))).toBe("invalid value: integer `9223372036854775808`, expected i64");
    expect(failure(() => u64.parse(-1))).toBe("invalid value: integer `-1`, expected u64");
    expect(failure(() => i32.parse(3_000_000_000))).toBe("invalid value: integer `3000000000`, expected i32");
    expect(i32.parse(-1)).toBe(-1);
    expect(failure(() => u32.parse(2 ** 32))).toBe("invalid value: integer `4294967296`, expected u32");
  });

  test("objects reject unknown and missing fields; optional fields accept absence and null", () => {
    const schema = object({ a: string, b: optional(u64) });
    expect(schema.parse({ a: "x" })).toEqual({ a: "x", b: null });
    expect(schema.parse({ a: "x", b: null })).toEqual({ a: "x", b: null });
    expect(failure(() => schema.parse({ a: "x", c: 1 }))).toBe("unknown field `c`, expected `a` or `b`");
    expect(failure(() => schema.parse({ b: 1 }))).toBe("missing field `a`");
    expect(failure(() => schema.parse([]))).toBe("invalid type: a sequence, expected a struct");
    expect(failure(() => object({ a: string, b: string, c: string }).parse({ d: 1 }))).toBe(
      "unknown field `d`, expected one of `a`, `b`, `c`",
    );
  });

  test("identifiers, enums and tagged unions", () => {
    expect(identifier.parse(" s ")).toBe(" s ");
    expect(failure(() => identifier.parse(" \t"))).toBe("identifier must not be empty");
    expect(failure(() => oneOf("client", "server").parse("Server"))).toBe(
      "unknown variant `Server`, expected `client` or `server`",
    );
    const union = tagged("type", { a: { x: array(u64) }, b: {} });
    expect(union.parse({ type: "a", x: [1] })).toEqual({ type: "a", x: [1] });
    expect(failure(() => union.parse({ type: "b", x: 1 }))).toBe("unknown field `x`, there are no fields");
    expect(failure(() => union.parse({ x: 1 }))).toBe("missing field `type`");
    expect(failure(() => union.parse({ type: "c" }))).toBe("unknown variant `c`, expected `a` or `b`");
  });

  test("client messages decode into typed values", () => {
    const message = clientMessage.parse({
      type: "operation/request",
      id: 3,
      request: {
        method: "session/wait",
        sessionId: "s1",
        request: { cell_id: "2", yield_time_ms: 10 },
        maxOutputTokens: null,
      },
    });
    expect(message).toEqual({
      type: "operation/request",
      id: 3n,
      request: {
        method: "session/wait",
        sessionId: "s1",
        request: { cell_id: "2", yield_time_ms: 10 },
        maxOutputTokens: null,
      },
    });
    expect(
      failure(() =>
        clientMessage.parse({ type: "delegate/response", id: 1, result: { status: "error", message: "m", x: 1 } })
      ),
    ).toBe(
      "unknown field `x`, expected `message`",
    );
  });
});
