// The client-frame parser (nesting limit, duplicate struct keys, exact i64 ids) and the catalog
// equality check, in process; the deep-schema attack of issue 11 through the real CLI.
import { afterAll, describe, expect, test } from "vitest";
import { type CachedCatalog, jsonEqual, resolveCatalog } from "../../lib/host/catalog.ts";
import { MAX_NESTING, parseClientFrame } from "../../lib/host/frame_json.ts";
import type { WireToolDefinition } from "../../lib/host/protocol.ts";
import { execute, hello, killAllHosts, open, prefix, startHost, tool, toolResult } from "../support/frame_client.ts";

afterAll(killAllHosts);

function failure(text: string): string {
  try {
    parseClientFrame(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the frame to be rejected");
}

/** A delegate/response whose tool result is `result` (raw JSON text): the result sits at nesting 3. */
function toolResultText(result: string): string {
  return `{"type":"delegate/response","id":1,"result":{"status":"ok","value":{"type":"tool/result","result":${result}}}}`;
}

/** An execute whose single tool has `schema` (raw JSON text) as its input_schema. */
function executeText(schema: string, id = 2): string {
  return JSON.stringify(
    execute(id, "s1", "text(1)", { tools: [tool("t", { input_schema: "@schema" })], catalogRevision: 1 }),
  ).replace(
    '"@schema"',
    schema,
  );
}

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
/** `depth` nested objects as JSON text. */
const deepObject = (depth: number) => '{"a":'.repeat(depth - 1) + '{"b":1}' + "}".repeat(depth - 1);

describe("nesting limit (serde_json's: the 128th container fails)", () => {
  test("127 containers decode; the 128th fails at its column, in a tool result and in a schema", () => {
    expect(MAX_NESTING).toBe(127);
    const ok = parseClientFrame(toolResultText(nested(124))) as { result: { value: { result: unknown } } };
    let depth = 0;
    for (let value: unknown = ok.result.value.result; Array.isArray(value); value = value[0]) depth++;
    expect(depth).toBe(124);
    const text = toolResultText(nested(125));
    // The reference reports this exact position (`column 223`, scripts/conformance).
    expect(failure(text)).toBe(`recursion limit exceeded at line 1 column ${text.indexOf("[") + 125}`);
    expect(failure(toolResultText(nested(125)))).toBe("recursion limit exceeded at line 1 column 223");
    expect(failure(executeText(deepObject(20_000)))).toMatch(/^recursion limit exceeded at line 1 column \d+$/);
  });

  test("brackets inside strings and escaped quotes do not count", () => {
    const tricky = JSON.stringify({ a: '[[[[{{{{\\"[[[[', b: "\\", c: '"]]]]' });
    const text = toolResultText(`[${tricky.repeat(3)}]`.replace(/}{/g, "},{"));
    expect(() => parseClientFrame(text)).not.toThrow();
    const many = toolResultText(JSON.stringify(Array.from({ length: 200 }, () => "[".repeat(200))));
    expect(() => parseClientFrame(many)).not.toThrow();
  });

  test("lines and columns count like serde_json (bytes, from the last newline)", () => {
    const text =
      `{"type":"delegate/response",\n"id":1,"result":{"status":"ok","value":{"type":"tool/result","result":"é",\n"x":${
        nested(130)
      }}}}`;
    const column = `"x":`.length + 125;
    expect(failure(text)).toBe(`recursion limit exceeded at line 3 column ${column}`);
  });
});

describe("duplicate keys", () => {
  test("a duplicate field of a typed struct is rejected at any struct depth, escaped spellings included", () => {
    expect(failure('{"type":"operation/cancel","id":1,"id":2}')).toBe("duplicate field `id`");
    expect(failure('{"type":"operation/cancel","type":"operation/yield","id":1}')).toBe("duplicate field `type`");
    expect(failure('{"type":"operation/cancel","id":1,"\\u0069d":2}')).toBe("duplicate field `id`");
    expect(failure('{"type":"delegate/response","id":1,"result":{"status":"error","message":"a","message":"b"}}')).toBe(
      "duplicate field `message`",
    );
    const body = executeText("null").replace('"source":"text(1)"', '"source":"text(1)","source":"text(2)"');
    expect(failure(body)).toBe("duplicate field `source`");
    const toolName = executeText("null").replace('"namespace":null', '"namespace":null,"name":"u"');
    expect(failure(toolName)).toBe("duplicate field `name`");
  });

  test("inside free JSON duplicates are allowed and the last wins (as the reference's serde_json Value)", () => {
    const result = parseClientFrame(toolResultText('{"x":1,"x":2}')) as { result: { value: { result: unknown } } };
    expect(result.result.value.result).toEqual({ x: 2 });
    const body = parseClientFrame(executeText('{"type":"object","type":"string"}')) as {
      request: { request: { enabled_tools: { input_schema: unknown }[] } };
    };
    expect(body.request.request.enabled_tools[0]!.input_schema).toEqual({ type: "string" });
  });

  test("objects with many keys stay linear, and a duplicate is still found past the small-object size", () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(",");
    // Unknown fields: the schema rejects them later; the scan must not go quadratic first (quadratic would be ~5e9
    // comparisons). How the time scales is measured by scripts/bench/latency.ts (scanners.frame_json_keys).
    expect(parseClientFrame(`{"type":"operation/cancel","id":1,${keys}}`)).toMatchObject({ id: 1, k99999: 99999 });
    const late = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(",");
    expect(failure(`{"type":"operation/cancel","id":1,${late},"k3":0}`)).toBe("duplicate field `k3`");
  });

  test("keys that only look alike inside strings are not keys", () => {
    expect(parseClientFrame('{"type":"operation/cancel","id":1,"x":"\\",\\"id\\":2"}')).toEqual({
      type: "operation/cancel",
      id: 1,
      x: '","id":2',
    });
  });
});

describe("integers", () => {
  test("typed i64 positions keep every digit; numbers inside free JSON stay numbers", () => {
    expect(parseClientFrame('{"type":"operation/cancel","id":9223372036854775807}')).toEqual({
      type: "operation/cancel",
      id: 9223372036854775807n,
    });
    expect(parseClientFrame('{"type":"operation/cancel","id":-9223372036854775808}')).toEqual({
      type: "operation/cancel",
      id: -9223372036854775808n,
    });
    const result = parseClientFrame(toolResultText('{"n":12345678901234567890,"m":[9007199254740993]}')) as {
      result: { value: { result: unknown } };
    };
    expect(result.result.value.result).toEqual({ n: 12345678901234567890, m: [9007199254740993] });
    expect(parseClientFrame(toolResultText("12345678901234567890"))).toMatchObject({
      result: { value: { result: 12345678901234567890 } },
    });
    // Sequences hold no i64 (only struct fields do): their long integers stay numbers.
    expect(parseClientFrame('{"type":"connection/hello","supportedVersions":[12345678901234567890]}')).toMatchObject({
      supportedVersions: [12345678901234567890],
    });
  });

  test("invalid JSON is reported by JSON.parse, whatever the scan saw", () => {
    expect(failure('{"type":"operation/cancel","id":')).toMatch(/JSON/);
    expect(failure('{"type":"operation/cancel","id":1,"s":"unterminated')).toMatch(/JSON|string/i);
    expect(failure("]]]")).toMatch(/JSON/);
  });
});

describe("catalog equality does not recurse", () => {
  const deep = (depth: number, leaf: unknown): unknown => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };

  test("20,000-deep values compare without overflowing the stack", () => {
    expect(jsonEqual(deep(20_000, 1), deep(20_000, 1))).toBe(true);
    expect(jsonEqual(deep(20_000, 1), deep(20_000, 2))).toBe(false);
    expect(jsonEqual(deep(20_000, [1, 2]), deep(20_000, [2, 1]))).toBe(false);
  });

  test("a deep schema sent twice with the same revision is equal, a changed leaf conflicts", () => {
    const definition = (leaf: unknown): WireToolDefinition => ({
      name: "t",
      tool_name: { name: "t", namespace: null },
      description: "",
      kind: "function",
      input_schema: deep(20_000, leaf),
      output_schema: null,
    });
    const holder: { catalog: CachedCatalog | null } = { catalog: null };
    expect(resolveCatalog(holder, 1, [definition(1)]).ok).toBe(true);
    expect(resolveCatalog(holder, 1, [definition(1)]).ok).toBe(true);
    expect(resolveCatalog(holder, 1, [definition(2)])).toEqual({
      ok: false,
      message: "conflicting code-mode catalog revision",
    });
  });
});

describe("through the real CLI", () => {
  function raw(text: string): Buffer {
    const body = Buffer.from(text);
    return Buffer.concat([prefix(body.length), body]);
  }

  test("a 20,000-deep input_schema fails the frame's decode, not the host's stack (issue 11, finding 8)", async () => {
    const host = startHost();
    host.send(hello());
    expect((await host.frames.next(10_000)).type).toBe("connection/ready");
    host.send(open(1, "s1"));
    expect((await host.frames.next()).result.value.type).toBe("session/ready");
    const attack = executeText(deepObject(20_000));
    host.sendRaw(Buffer.concat([raw(attack), raw(attack.replace('"id":2', '"id":3'))]));
    const exit = await host.exit;
    expect(exit.code).toBe(1);
    expect(host.stderr()).toContain(
      "Error: failed to read code-mode client message: failed to decode code-mode IPC frame: recursion limit exceeded at line 1 column ",
    );
    expect(host.stderr()).not.toContain("Maximum call stack");
    expect(host.frames.received.length).toBe(2);
  });

  test("a schema at the limit runs twice under one revision; a duplicate id is fatal; free JSON keeps numbers", async () => {
    const host = startHost();
    host.send(hello());
    await host.frames.next(10_000);
    host.send(open(1, "s1"));
    await host.frames.next();
    // The schema starts at nesting 6 (frame, request, body, enabled_tools, the tool).
    const schema = deepObject(127 - 5);
    host.sendRaw(raw(executeText(schema, 2)));
    const first = await host.frames.take(3, 10_000);
    expect(first.map((frame) => frame.type)).toEqual(["operation/response", "execute/initialResponse", "cell/closed"]);
    expect(first[1].result.value.Result.content_items).toEqual([{ type: "input_text", text: "1" }]);
    host.sendRaw(raw(executeText(schema, 3)));
    const second = await host.frames.take(3, 10_000);
    expect(second[1].result.value.Result.content_items).toEqual([{ type: "input_text", text: "1" }]);

    host.send(
      execute(4, "s1", "const r = await tools.t({}); text(typeof r.n); text(r.n); text(r.x)", { tools: [tool("t")] }),
    );
    await host.frames.next();
    const call = await host.frames.next();
    expect(call.request.type).toBe("tool/invoke");
    host.sendRaw(
      raw(
        JSON.stringify(toolResult(call.id, { n: "@n", x: 1 })).replace('"@n"', "12345678901234567890").replace(
          '"x":1',
          '"x":1,"x":2',
        ),
      ),
    );
    const done = await host.frames.next();
    expect(done.result.value.Result).toMatchObject({
      content_items: [
        { type: "input_text", text: "number" },
        { type: "input_text", text: "12345678901234567000" },
        { type: "input_text", text: "2" },
      ],
      error_text: null,
    });
    await host.frames.next();
    host.sendRaw(raw('{"type":"operation/cancel","id":9,"id":10}'));
    const exit = await host.exit;
    expect(exit.code).toBe(1);
    expect(host.stderr()).toContain("failed to decode code-mode IPC frame: duplicate field `id`");
  });
});
