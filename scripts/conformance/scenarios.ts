// The scripted sessions of the conformance run. Each drives one framed connection; the
// transcript of frames it reads is compared between scv and the reference host.
import {
  ALL_CAPABILITIES,
  execute,
  hello,
  open,
  prefix,
  request,
  shutdown,
  terminate,
  tool,
  toolResult,
  wait,
} from "../../tests/support/frame_client.ts";
import type { Driver } from "./host.ts";

export interface Script {
  name: string;
  /** Compare frames as a multiset (concurrent requests). */
  unordered?: boolean;
  run(driver: Driver): Promise<void>;
}

const D4 = "0123456789".repeat(4);

/** Hello + open s1, both read. */
async function ready(d: Driver, optional: string[] = [], session: Record<string, unknown> = {}): Promise<void> {
  d.send(hello(optional));
  await d.read(1);
  d.send(open(1, "s1", session));
  await d.read(1);
}

/** Runs one cell and reads through its cell/closed (for cells that finish on their own). */
async function cell(d: Driver, id: number, source: string, options: Parameters<typeof execute>[3] = {}): Promise<void> {
  d.send(execute(id, "s1", source, options));
  await d.read(3);
}

export const scenarios: Script[] = [
  {
    name: "handshake: capabilities",
    async run(d) {
      d.send(hello([...ALL_CAPABILITIES, "zzz", "dual-websocket-v1"].reverse()));
      await d.read(1);
    },
  },
  {
    name: "handshake: required capability order",
    async run(d) {
      d.send(hello([], ["b-req", "a-req"]));
      await d.read(1);
    },
  },
  {
    name: "handshake: versions [2]",
    async run(d) {
      d.send(hello([], [], [2]));
      await d.read(1);
    },
  },
  {
    name: "handshake: versions [2,1] and required only",
    async run(d) {
      d.send(hello([], ["delegate-capacity-4096"], [2, 1]));
      await d.read(1);
    },
  },
  {
    name: "handshake: open first",
    async run(d) {
      d.send(open(1, "s1"));
      await d.read(1);
    },
  },
  {
    name: "handshake: invalid JSON is fatal",
    async run(d) {
      d.raw(Buffer.from([1, 0, 0, 0, 0x7b]));
      await d.settle(300);
    },
  },
  {
    name: "handshake: oversize prefix is fatal",
    async run(d) {
      d.raw(prefix(83_886_081));
      await d.settle(300);
    },
  },
  {
    name: "handshake: second hello is fatal",
    async run(d) {
      d.send(hello());
      await d.read(1);
      d.send(hello());
      await d.settle(300);
    },
  },
  {
    name: "sessions: open, reuse, unknown",
    async run(d) {
      d.send(hello());
      await d.read(1);
      d.send(open(1, "s1"), open(2, "s2"));
      await d.read(2);
      d.send(open(3, "s1"));
      await d.read(1);
      d.send(shutdown(4, "s1"));
      await d.read(1);
      d.send(open(5, "s1"));
      await d.read(1);
      d.send(shutdown(6, "s1"));
      await d.read(1);
      for (
        const [id, message] of [
          [7, wait(7, "nope", "1", 10)],
          [8, terminate(8, "nope", "1")],
          [9, shutdown(9, "nope")],
          [10, execute(10, "nope", "text(1)")],
        ] as const
      ) {
        void id;
        d.send(message);
        await d.read(1);
      }
      d.send(open(-5, " s "), open(9007199254740991, "big"));
      await d.read(2);
    },
  },
  {
    name: "ids: duplicate finished id is fatal",
    async run(d) {
      await ready(d);
      d.send(open(1, "s2"));
      await d.settle(300);
    },
  },
  {
    name: "ids: execute id active until initial response",
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "await new Promise(() => {})", { yieldTimeMs: 60_000 }));
      await d.read(1);
      d.send(execute(2, "s1", "text(1)"));
      await d.settle(300);
    },
  },
  {
    name: "execute: results, errors, ids",
    async run(d) {
      await ready(d);
      await cell(d, 2, "text(1)");
      await cell(d, 3, "throw 'boom'");
      await cell(d, 4, "text('before'); throw new Error('boom')");
      await cell(d, 5, "throw { a: 1 }");
      await cell(d, 6, "throw 42");
      await cell(d, 7, "throw undefined");
      await cell(d, 8, "syntax error here");
      d.send(execute(9, "s1", "text(2)", { maxOutputTokens: -1 }));
      await d.read(1);
      await cell(d, 10, "text('a'); exit(); text('b')");
      await cell(d, 11, "try { exit() } catch { text('c') }");
    },
  },
  {
    name: "execute: server mode Script error and MissingCell",
    async run(d) {
      await ready(d, ["bounded-output-v1"], { outputTruncation: "server" });
      await cell(d, 2, "text('before'); throw new Error('boom')");
      await cell(d, 3, "throw 'bare'", { maxOutputTokens: 10_000 });
      d.send(wait(4, "s1", "9", 10));
      await d.read(1);
      d.send(wait(5, "s1", "9", 10, 3));
      await d.read(1);
    },
  },
  {
    name: "truncation: §9 worked examples",
    async run(d) {
      await ready(d, ["bounded-output-v1"], { outputTruncation: "server" });
      await cell(d, 2, "text('A'.repeat(400)); text('B'.repeat(400) + ' tail-marker')", { maxOutputTokens: 30 });
      await cell(d, 3, "text('abcdefgh'); text('ij')", { maxOutputTokens: 0 });
      await cell(d, 4, "text('é'.repeat(20))", { maxOutputTokens: 3 });
      await cell(d, 5, `text('${D4}'); image('data:image/png;base64,AAAA'); text('${D4}'); text('zz')`, {
        maxOutputTokens: 15,
      });
      await cell(d, 6, "text(''); text(''); text('x')", { maxOutputTokens: 0 });
      await cell(d, 7, "text('line1\\nline2\\n'); text('z'.repeat(100))", { maxOutputTokens: 2 });
      await cell(
        d,
        8,
        "text(''); image('data:image/png;base64,AAAA'); audio('data:audio/wav;base64,AAAA'); text('q'.repeat(100))",
        { maxOutputTokens: 5 },
      );
    },
  },
  {
    name: "truncation: per-session selection",
    async run(d) {
      d.send(hello(["bounded-output-v1"]));
      await d.read(1);
      d.send(open(1, "client"), open(2, "server", { outputTruncation: "server" }));
      await d.read(2);
      const source = "text('0123456789'.repeat(4)); yield_control(); text('0123456789'.repeat(8));";
      for (
        const [id, name] of [
          [3, "client"],
          [5, "server"],
        ] as const
      ) {
        d.send(
          request(id, {
            method: "session/execute",
            sessionId: name,
            request: { tool_call_id: "c", enabled_tools: [], source, yield_time_ms: null, max_output_tokens: 5 },
          }),
        );
        await d.read(2);
        // Let the cell finish first in both hosts, so both buffer the result.
        await d.sleep(300);
        d.send(wait(id + 1, name, "1", 60_000, 7));
        await d.read(2);
      }
    },
  },
  {
    name: "lifecycle: yield, double terminate, missing",
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "text('x'); await new Promise(() => {})", { yieldTimeMs: 300 }));
      await d.read(2);
      d.send(terminate(3, "s1", "1"), terminate(4, "s1", "1"));
      await d.read(3);
      d.send(wait(5, "s1", "1", 100));
      await d.read(1);
      d.send(terminate(6, "s1", "1"));
      await d.read(1);
    },
  },
  {
    name: "lifecycle: observers, cancel, buffered result",
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "yield_control(); await new Promise((r) => setTimeout(r, 600)); text('done')"));
      await d.read(2);
      d.send(wait(3, "s1", "1", 60_000));
      await d.sleep(50);
      d.send(wait(4, "s1", "1", 60_000));
      await d.read(1);
      d.send({ type: "operation/cancel", id: 3 });
      await d.read(1);
      await d.sleep(900);
      d.send(wait(5, "s1", "1", 60_000));
      await d.read(2);
    },
  },
  {
    name: "lifecycle: operation/yield",
    async run(d) {
      await ready(d, ["yield-observation"]);
      d.send(execute(2, "s1", "await new Promise(() => {})", { yieldTimeMs: 30_000 }));
      await d.read(1);
      d.send({ type: "operation/yield", id: 2 });
      await d.read(1);
      d.send(wait(3, "s1", "1", 30_000));
      await d.sleep(50);
      d.send({ type: "operation/yield", id: 3 }, { type: "operation/yield", id: 77 });
      await d.read(1);
      await d.settle(200);
    },
  },
  {
    name: "lifecycle: shutdown with live cells",
    // The reference orders the Terminated initial response and both cell/closed frames by task timing.
    unordered: true,
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "yield_control(); await new Promise(() => {})"));
      await d.read(2);
      d.send(execute(3, "s1", "await new Promise(() => {})", { yieldTimeMs: 60_000 }));
      await d.read(1);
      d.send(shutdown(4, "s1"));
      await d.read(4);
    },
  },
  {
    name: "lifecycle: yield limit 0",
    async run(d) {
      d.send(hello());
      await d.read(1);
      d.send(open(1, "s1", { cellExecutionLimits: { maxYieldTimeMs: 0 } }));
      await d.read(1);
      d.send(execute(2, "s1", "text(1); await new Promise(() => {})"));
      await d.read(2);
    },
  },
  {
    name: "catalog revisions",
    async run(d) {
      await ready(d, ["tool-catalog-revision-v1"]);
      const a = tool("a");
      const b = tool("b");
      const names = "text(Object.keys(tools).join(','))";
      const steps: [number, unknown[], number | null | undefined][] = [
        [2, [a], undefined],
        [3, [], 1],
        [4, [a], 0],
        [5, [a], 2],
        [6, [], 2],
        [7, [{ ...(a as object), description: "changed" }], 2],
        [8, [b], 1],
        [9, [], 1],
        [10, [a, b], 3],
        [11, [], 3],
        [12, [], 2],
      ];
      for (const [id, tools, revision] of steps) {
        d.send(execute(id, "s1", names, { tools, catalogRevision: revision }));
        const [first] = await d.read(1);
        if (first.result.status === "ok") await d.read(2);
      }
    },
  },
  {
    name: "delegates: tool inputs and answers",
    async run(d) {
      await ready(d);
      const tools = [tool("t"), {
        ...(tool("f") as object),
        kind: "freeform",
        tool_name: { name: "f", namespace: "mcp__srv__" },
      }];
      d.send(
        execute(
          2,
          "s1",
          "for (const v of [[], [undefined], ['str'], [5], [null], [{a: undefined}]]) text(JSON.stringify(await tools.t(...v)));",
          { tools },
        ),
      );
      await d.read(1);
      for (let i = 1; i <= 6; i++) {
        await d.read(1);
        d.send(toolResult(i, { n: i }));
      }
      await d.read(2);
      d.send(execute(3, "s1", "try { await tools.f('raw') } catch (e) { text(typeof e + ':' + e) }", { tools }));
      await d.read(2);
      d.send({ type: "delegate/response", id: 7, result: { status: "error", message: "nope" } });
      await d.read(2);
      d.send(execute(4, "s1", "try { await tools.t() } catch (e) { text(typeof e + ':' + e) }", { tools }));
      await d.read(2);
      d.send({ type: "delegate/response", id: 8, result: { status: "ok", value: { type: "notification/delivered" } } });
      await d.read(2);
      d.send(toolResult(8, 1), toolResult(999, 1));
      await d.settle(200);
    },
  },
  {
    name: "delegates: notify and unawaited calls",
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "notify({a:1}); text('after')", { toolCallId: "call_exec_yield" }));
      await d.read(2);
      d.send({ type: "delegate/response", id: 1, result: { status: "ok", value: { type: "notification/delivered" } } });
      await d.read(2);
      d.send(
        execute(3, "s1", "tools.t(1); await new Promise((r) => setTimeout(r, 50)); text('done')", {
          tools: [tool("t")],
        }),
      );
      await d.read(5);
      d.send(execute(4, "s1", "await tools.t(2)", { tools: [tool("t")], yieldTimeMs: 60_000 }));
      await d.read(2);
      d.send(terminate(5, "s1", "3"));
      await d.read(4);
      d.send(execute(6, "s1", "notify(' ')"));
      await d.read(3);
    },
  },
  {
    name: "javascript api: globals, text, timers, store, images",
    async run(d) {
      await ready(d);
      const names = [
        "console",
        "Atomics",
        "SharedArrayBuffer",
        "WebAssembly",
        "require",
        "process",
        "Buffer",
        "fetch",
        "setInterval",
        "setImmediate",
        "queueMicrotask",
        "structuredClone",
        "TextEncoder",
        "Temporal",
      ];
      await cell(d, 2, `text(${JSON.stringify(names)}.map((n) => n + '=' + typeof globalThis[n]).join(','))`);
      await cell(
        d,
        3,
        "text(NaN); text(null); text(); text(true); text(10n); text({a:[1]}); text(() => 1); text(''); text(Symbol('s'))",
      );
      await cell(d, 4, "const o = {}; o.o = o; text(o)");
      await cell(
        d,
        5,
        "const a = setTimeout(() => text('t'), 1); text(a + ',' + setTimeout(() => {}, 1)); await new Promise((r) => setTimeout(r, 5))",
      );
      await cell(d, 6, "setTimeout('x')");
      await cell(d, 7, "clearTimeout('a'); clearTimeout(1n)");
      await cell(
        d,
        8,
        "store('k', { n: 1, d: new Date(0), m: new Map(), x: NaN, f() {} }); text(JSON.stringify(load('k')))",
      );
      await cell(d, 9, "text(JSON.stringify(load('k'))); text(String(load('missing')))");
      await cell(d, 10, "store('u', undefined)");
      await cell(d, 11, "store(Symbol('s'), 1)");
      await cell(
        d,
        12,
        "image('data:image/png;base64,AA', 'LOW'); image({ image_url: 'data:x', detail: 'original' }); image({ type: 'image', data: 'QQ', mimeType: 'image/gif', _meta: { 'codex/imageDetail': 'low' } })",
      );
      await cell(d, 13, "image('https://x.example/a.png')");
      await cell(d, 14, "image('file:///etc/passwd')");
      await cell(d, 15, "image('data:x', 'huge')");
      await cell(d, 16, "audio('http://x.example/a.wav')");
      await cell(d, 17, "generatedImage({ image_url: 'data:image/png;base64,AA', output_hint: 'hint' })");
      await cell(d, 18, "generatedImage(5)");
      await cell(d, 19, "import fs from 'fs'; text(1)");
      await cell(d, 20, "try { await import('fs') } catch (e) { text(typeof e + ':' + e) }");
      await cell(d, 21, "text(typeof this); export const x = 1;");
      await cell(d, 22, "text(ALL_TOOLS.map((t) => t.name + ':' + t.description).join(' '))", {
        tools: ["a-b", "9x", "ok$", "mcp__srv__t", ""].map((name) => tool(name, { description: `d-${name}` })),
      });
      await cell(d, 23, "tools.t(10n)", { tools: [tool("t")] });
      await cell(d, 24, "tools.t(() => 1)", { tools: [tool("t")] });
      await cell(
        d,
        25,
        "setTimeout(() => { throw new Error('late') }, 1); await new Promise((r) => setTimeout(r, 20))",
      );
    },
  },
  {
    name: "eof: clean exit with live work",
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "while (true) {}", { yieldTimeMs: 60_000 }));
      d.send(execute(3, "s1", "await tools.t()", { tools: [tool("t")], yieldTimeMs: 60_000 }));
      await d.read(3);
      d.host.closeStdin();
      await d.settle(300);
    },
  },
];

scenarios.push(
  {
    name: "admission: error precedence",
    async run(d) {
      await ready(d, ["tool-catalog-revision-v1"]);
      d.send(execute(2, "nope", "text(1)", { maxOutputTokens: -1, catalogRevision: 0 }));
      await d.read(1);
      d.send(execute(3, "s1", "text(1)", { maxOutputTokens: -1, catalogRevision: 0 }));
      await d.read(1);
      d.send(execute(4, "s1", "text(1)", { catalogRevision: 0, tools: [] }));
      await d.read(1);
    },
  },
  {
    name: "oversize: wait response and initial response",
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "yield_control(); text('x'.repeat(70*1024*1024)); await new Promise(() => {})"));
      await d.read(2);
      await d.sleep(1_500);
      d.send(wait(3, "s1", "1", 100));
      await d.read(1, 60_000);
      d.send(execute(4, "s1", "text('y'.repeat(70*1024*1024))"));
      await d.read(3, 60_000);
    },
  },
);

scenarios.push(
  {
    name: "lifecycle: terminate with a pending wait",
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "text('a'); yield_control(); text('b'); await new Promise(() => {})"));
      await d.read(2);
      d.send(wait(3, "s1", "1", 60_000));
      await d.sleep(100);
      d.send(terminate(4, "s1", "1"));
      await d.read(3);
    },
  },
  {
    name: "lifecycle: shutdown with a pending wait and buffered result",
    // Known difference: the reference sends cell/closed for the already finished cell 2 before the
    // wait's Terminated; scv sends every cell/closed after the observers' answers (§5.2 order).
    unordered: true,
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "yield_control(); await new Promise(() => {})"));
      await d.read(2);
      d.send(execute(3, "s1", "yield_control(); text('done')"));
      await d.read(2);
      await d.sleep(200);
      d.send(wait(4, "s1", "1", 60_000));
      await d.sleep(100);
      d.send(shutdown(5, "s1"));
      await d.read(4);
    },
  },
  {
    name: "lifecycle: wait yields with new items only after its timer",
    async run(d) {
      await ready(d);
      d.send(
        execute(
          2,
          "s1",
          "text('a'); yield_control(); text('b'); await new Promise((r) => setTimeout(r, 100)); text('c'); await new Promise(() => {})",
        ),
      );
      await d.read(2);
      d.send(wait(3, "s1", "1", 400));
      await d.read(1);
      d.send(wait(4, "s1", "1", 50));
      await d.read(1);
      d.send(terminate(5, "s1", "1"));
      await d.read(2);
    },
  },
  {
    name: "delegates: late answers after terminate are ignored",
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "await tools.t(1)", { tools: [tool("t")], yieldTimeMs: 100 }));
      await d.read(3);
      d.send(terminate(3, "s1", "1"));
      await d.read(3);
      d.send(toolResult(1, 5));
      await d.settle(200);
    },
  },
  {
    name: "delegates: notify while yielded, answered later",
    async run(d) {
      await ready(d);
      d.send(execute(2, "s1", "yield_control(); notify('ping'); text('x')", { toolCallId: "call_n" }));
      await d.read(3);
      await d.sleep(200);
      d.send({ type: "delegate/response", id: 1, result: { status: "error", message: "no thread" } });
      await d.sleep(100);
      d.send(wait(3, "s1", "1", 1_000));
      await d.read(2);
    },
  },
  {
    name: "tools: duplicate names and schemas",
    async run(d) {
      await ready(d);
      const tools = [
        tool("dup", { description: "first", input_schema: { type: "object", extra: { nested: true } } }),
        tool("dup", { description: "second", output_schema: { type: "string" } }),
      ];
      d.send(execute(2, "s1", "text(ALL_TOOLS.map((t) => t.description).join(',')); await tools.dup({})", { tools }));
      await d.read(2);
      d.send(toolResult(1, null));
      await d.read(2);
    },
  },
  {
    name: "ids: full i64 range echoes exactly",
    async run(d) {
      d.send(hello());
      await d.read(1);
      d.raw(
        Buffer.concat(
          [
            '{"type":"operation/request","id":9223372036854775807,"request":{"method":"session/open","sessionId":"a"}}',
            '{"type":"operation/request","id":-9223372036854775808,"request":{"method":"session/open","sessionId":"b"}}',
          ].map((json) => {
            const payload = Buffer.from(json);
            return Buffer.concat([prefix(payload.length), payload]);
          }),
        ),
      );
      await d.read(2);
    },
  },
);

/** §12.3 and §12.6: each must end the connection with no frame and exit 1 in both hosts. */
const fatalAfterOpen: [string, unknown][] = [
  ["unknown type", { type: "operation/nope", id: 1 }],
  ["unknown method", request(2, { method: "session/nope", sessionId: "s1" })],
  ["unknown tool field", execute(2, "s1", "1", { tools: [{ ...(tool("t") as object), extra: 1 }] })],
  ["unknown tool/result field", {
    type: "delegate/response",
    id: 1,
    result: { status: "ok", value: { type: "tool/result", result: 1, x: 2 } },
  }],
  ["unknown error field", { type: "delegate/response", id: 1, result: { status: "error", message: "m", code: 3 } }],
  ["tool/result without result", {
    type: "delegate/response",
    id: 1,
    result: { status: "ok", value: { type: "tool/result" } },
  }],
  ["empty sessionId", open(2, "")],
  ["max_output_tokens beyond i32", execute(2, "s1", "1", { maxOutputTokens: 3_000_000_000 })],
  ["negative maxOutputTokens", wait(2, "s1", "1", 10, -3)],
  ["negative catalog_revision", execute(2, "s1", "1", { catalogRevision: -1 })],
  ["string id", { type: "operation/request", id: "2", request: { method: "session/shutdown", sessionId: "s1" } }],
  ["fractional id", { type: "operation/request", id: 2.5, request: { method: "session/shutdown", sessionId: "s1" } }],
  ["wait without yield_time_ms", request(2, { method: "session/wait", sessionId: "s1", request: { cell_id: "1" } })],
  ["outputTruncation Server", open(2, "s2", { outputTruncation: "Server" })],
  ["null description", execute(2, "s1", "1", { tools: [{ ...(tool("t") as object), description: null }] })],
  ["negative yield_time_ms", execute(2, "s1", "1", { yieldTimeMs: -1 })],
  ["unknown cellExecutionLimits field", open(2, "s2", { cellExecutionLimits: { maxCpu: 1 } })],
  ["null cell id", request(2, { method: "session/terminate", sessionId: "s1", cellId: null })],
  ["id beyond i64", { type: "operation/request", id: 1e19, request: { method: "session/shutdown", sessionId: "s1" } }],
];
for (const [name, message] of fatalAfterOpen) {
  scenarios.push({
    name: `fatal: ${name}`,
    async run(d) {
      await ready(d);
      d.send(message);
      await d.settle(300);
    },
  });
}

const fatalHellos: [string, unknown][] = [
  ["no versions", {
    type: "connection/hello",
    supportedVersions: [],
    requiredCapabilities: [],
    optionalCapabilities: [],
  }],
  ["duplicate version", {
    type: "connection/hello",
    supportedVersions: [1, 1],
    requiredCapabilities: [],
    optionalCapabilities: [],
  }],
  ["version 0", {
    type: "connection/hello",
    supportedVersions: [0],
    requiredCapabilities: [],
    optionalCapabilities: [],
  }],
  ["duplicate capability", {
    type: "connection/hello",
    supportedVersions: [1],
    requiredCapabilities: [],
    optionalCapabilities: ["x", "x"],
  }],
  ["required and optional", {
    type: "connection/hello",
    supportedVersions: [1],
    requiredCapabilities: ["x"],
    optionalCapabilities: ["x"],
  }],
  ["blank capability", {
    type: "connection/hello",
    supportedVersions: [1],
    requiredCapabilities: [],
    optionalCapabilities: ["  "],
  }],
  ["extra field", {
    type: "connection/hello",
    supportedVersions: [1],
    requiredCapabilities: [],
    optionalCapabilities: [],
    x: 1,
  }],
  ["missing optionalCapabilities", { type: "connection/hello", supportedVersions: [1], requiredCapabilities: [] }],
];
for (const [name, message] of fatalHellos) {
  scenarios.push({
    name: `fatal hello: ${name}`,
    async run(d) {
      d.send(message);
      await d.settle(300);
    },
  });
}

/** One frame of raw JSON text (for what JSON.stringify cannot write: duplicate keys, big integers). */
function rawFrame(text: string): Buffer {
  const body = Buffer.from(text);
  return Buffer.concat([prefix(body.length), body]);
}

/** `depth` nested objects as JSON text. */
function deepObject(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{"b":1}' + "}".repeat(depth - 1);
}

function executeWithSchema(id: number, schema: string): string {
  return JSON.stringify(
    execute(id, "s1", "text(ALL_TOOLS.length)", { tools: [tool("t", { input_schema: "@s" })], catalogRevision: 1 }),
  ).replace(
    '"@s"',
    schema,
  );
}

scenarios.push(
  {
    // The schema starts at nesting 6: 122 levels reach serde_json's limit of 127 containers exactly.
    name: "decoding: a schema at the nesting limit, twice under one revision, then one level deeper",
    async run(d) {
      await ready(d, ["tool-catalog-revision-v1"]);
      d.raw(rawFrame(executeWithSchema(2, deepObject(122))));
      await d.read(3);
      d.raw(rawFrame(executeWithSchema(3, deepObject(122))));
      await d.read(3);
      d.raw(rawFrame(executeWithSchema(4, deepObject(123))));
      await d.settle(300);
    },
  },
  {
    name: "decoding: a 20,000-deep schema is a decode error",
    async run(d) {
      await ready(d);
      d.raw(rawFrame(executeWithSchema(2, deepObject(20_000))));
      await d.settle(300);
    },
  },
  {
    name: "decoding: a duplicate struct field is fatal",
    async run(d) {
      await ready(d);
      d.raw(
        rawFrame(
          '{"type":"operation/request","id":2,"request":{"method":"session/shutdown","sessionId":"s1","sessionId":"s1"}}',
        ),
      );
      await d.settle(300);
    },
  },
  {
    name: "decoding: duplicates and big integers inside free JSON",
    async run(d) {
      await ready(d);
      d.send(
        execute(2, "s1", "const r = await tools.t({}); text(typeof r.n); text(r.n); text(r.x)", { tools: [tool("t")] }),
      );
      const [, call] = await d.read(2);
      d.raw(
        rawFrame(
          `{"type":"delegate/response","id":${call.id},"result":{"status":"ok","value":{"type":"tool/result","result":{"n":12345678901234567890,"x":1,"x":2}}}}`,
        ),
      );
      await d.read(2);
    },
  },
);
