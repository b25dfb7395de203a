import { describe, expect, test } from "vitest";
import { clientMessage, wireId } from "../../lib/host/protocol.ts";
import { parsePreciseJson } from "../../lib/host/precise_json.ts";

describe("parsePreciseJson", () => {
  test("keeps i64 extremes exact and leaves other numbers alone", () => {
    const parsed = parsePreciseJson(
      '{"id":9223372036854775807,"x":-9223372036854775808,"f":1.5e300,"s":12,"t":"12345678901234567890"}',
    );
    expect(parsed).toEqual({
      id: 9223372036854775807n,
      x: -9223372036854775808n,
      f: 1.5e300,
      s: 12,
      t: "12345678901234567890",
    });
  });

  test("an exact id decodes and echoes exactly", () => {
    const message = clientMessage.parse(parsePreciseJson('{"type":"operation/cancel","id":9223372036854775807}')) as {
      id: bigint;
    };
    expect(JSON.stringify({ id: wireId(message.id) })).toBe('{"id":9223372036854775807}');
    expect(() => clientMessage.parse(parsePreciseJson('{"type":"operation/cancel","id":9223372036854775808}'))).toThrow(
      "invalid value: integer `9223372036854775808`, expected i64",
    );
  });
});
