// Host spec §12 items 1–6: handshake, capabilities, framing and strict decoding. The rules run
// in process against the real stdio transport and connection (in_process.ts: no cell runs, so
// the sandbox is inert); a few smoke tests at the end run the real CLI over real pipes.
import { afterAll, describe, expect, test } from "vitest";
import { UNDER_DENO } from "../support/cli_command.ts";
import { encodeFrame } from "../../lib/codec/index.ts";
import {
  ALL_CAPABILITIES,
  execute,
  hello,
  killAllHosts,
  open,
  prefix,
  readyHost,
  request,
  startHost,
  tool,
  wait,
} from "../support/frame_client.ts";
import { HANG_MS, within } from "../support/wait.ts";
import { killAllInProcess, readyInProcess, startInProcess, type TestHost } from "./in_process.ts";

afterAll(() => {
  killAllInProcess();
  killAllHosts();
});

/** Polls `condition` until it holds or the hang deadline passed. */
async function until(condition: () => boolean): Promise<boolean> {
  const deadline = Date.now() + HANG_MS;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

async function negotiate(
  optional: string[],
  required: string[] = [],
  versions = [1],
): Promise<{ frame: unknown; host: TestHost }> {
  const host = startInProcess();
  host.send(hello(optional, required, versions));
  const frame = await host.frames.next(10_000);
  return { frame, host };
}

function rawHello(fields: Record<string, unknown>): unknown {
  return {
    type: "connection/hello",
    supportedVersions: [1],
    requiredCapabilities: [],
    optionalCapabilities: [],
    ...fields,
  };
}

/** Sends `messages`, expects no stdout frame, exit 1 and `stderrPart` in stderr. */
async function expectFatal(host: TestHost, stderrPart: string): Promise<void> {
  const exit = await host.exit;
  expect(exit.code).toBe(1);
  expect(host.stderr()).toContain(stderrPart);
  expect(host.stderr()).toMatch(/^Error: /m);
}

describe.concurrent("capability negotiation (§12.1)", () => {
  test("no capabilities → []", async () => {
    const { frame, host } = await negotiate([]);
    expect(frame).toEqual({ type: "connection/ready", selectedVersion: 1, capabilities: [] });
    host.closeStdin();
    expect((await host.exit).code).toBe(0);
  });

  test("all five optional → all five, sorted", async () => {
    const { frame, host } = await negotiate([...ALL_CAPABILITIES].reverse());
    expect(frame).toEqual({ type: "connection/ready", selectedVersion: 1, capabilities: ALL_CAPABILITIES });
    host.kill();
  });

  for (const capability of ["session-cell-execution-resource-limits", "bounded-output-v1", "delegate-capacity-4096"]) {
    test(`${capability} alone, optional or required → exactly it`, async () => {
      for (
        const [optional, required] of [
          [[capability], []],
          [[], [capability]],
        ] as const
      ) {
        const { frame, host } = await negotiate([...optional], [...required]);
        expect(frame).toEqual({ type: "connection/ready", selectedVersion: 1, capabilities: [capability] });
        host.closeStdin();
        expect((await host.exit).code).toBe(0);
      }
    });
  }

  test("unknown optional capabilities are dropped; dual-websocket-v1 is never granted", async () => {
    const first = await negotiate(["zzz", "bounded-output-v1"]);
    expect(first.frame).toEqual({ type: "connection/ready", selectedVersion: 1, capabilities: ["bounded-output-v1"] });
    first.host.kill();
    const second = await negotiate(["dual-websocket-v1"]);
    expect(second.frame).toEqual({ type: "connection/ready", selectedVersion: 1, capabilities: [] });
    second.host.kill();
  });
});

describe.concurrent("narrowed capabilities (test hook)", () => {
  test("SCV_HOST_CAPABILITIES limits what is granted and what a required capability may name", async () => {
    const host = startInProcess({ env: { SCV_HOST_CAPABILITIES: "bounded-output-v1" } });
    host.send(hello(ALL_CAPABILITIES));
    expect(await host.frames.next()).toEqual({
      type: "connection/ready",
      selectedVersion: 1,
      capabilities: ["bounded-output-v1"],
    });
    host.kill();
    const strict = startInProcess({ env: { SCV_HOST_CAPABILITIES: "" } });
    strict.send(hello([], ["yield-observation"]));
    expect(await strict.frames.next()).toEqual({
      type: "connection/rejected",
      reason: { type: "missingRequiredCapability", capability: "yield-observation" },
    });
  });
});

describe.concurrent("handshake rejections (§12.2)", () => {
  test("the first unsupported required capability in sorted order is named", async () => {
    const { frame, host } = await negotiate([], ["b-req", "a-req"]);
    expect(frame).toEqual({
      type: "connection/rejected",
      reason: { type: "missingRequiredCapability", capability: "a-req" },
    });
    expect((await host.exit).code).toBe(0);
  });

  test("versions [2] → noCompatibleVersion [1]; [2,1] → ready", async () => {
    const rejected = await negotiate([], [], [2]);
    expect(rejected.frame).toEqual({
      type: "connection/rejected",
      reason: { type: "noCompatibleVersion", supportedVersions: [1] },
    });
    expect((await rejected.host.exit).code).toBe(0);
    const ready = await negotiate([], [], [2, 1]);
    expect(ready.frame).toEqual({ type: "connection/ready", selectedVersion: 1, capabilities: [] });
    ready.host.kill();
  });

  test("session/open first → invalidHello", async () => {
    const host = startInProcess();
    host.send(open(1, "session-1"));
    expect(await host.frames.next()).toEqual({
      type: "connection/rejected",
      reason: { type: "invalidHello", message: "first message must be connection/hello" },
    });
    expect((await host.exit).code).toBe(0);
  });
});

describe.concurrent("invalid hellos are fatal without output (§12.3)", () => {
  const cases: [string, (host: TestHost) => void, string][] = [
    ["invalid JSON", (h) => h.sendRaw(Buffer.from([1, 0, 0, 0, 0x7b])), "failed to decode code-mode IPC frame: "],
    ["no versions", (h) => h.send(rawHello({ supportedVersions: [] })), "at least one protocol version is required"],
    ["duplicate version", (h) => h.send(rawHello({ supportedVersions: [1, 1] })), "duplicate protocol version 1"],
    [
      "duplicate capability",
      (h) => h.send(rawHello({ optionalCapabilities: ["x", "x"] })),
      "duplicate capability `x`",
    ],
    [
      "required and optional",
      (h) => h.send(rawHello({ requiredCapabilities: ["x"], optionalCapabilities: ["x"] })),
      "capability `x` cannot be both required and optional",
    ],
    ["empty capability", (h) => h.send(rawHello({ optionalCapabilities: [""] })), "identifier must not be empty"],
    [
      "whitespace capability",
      (h) => h.send(rawHello({ optionalCapabilities: ["  "] })),
      "identifier must not be empty",
    ],
    ["version 0", (h) => h.send(rawHello({ supportedVersions: [0] })), "failed to read code-mode client hello"],
    ["an extra field", (h) => h.send(rawHello({ extra: true })), "unknown field `extra`"],
    [
      "no optionalCapabilities",
      (h) => h.send({ type: "connection/hello", supportedVersions: [1], requiredCapabilities: [] }),
      "missing field `optionalCapabilities`",
    ],
    ["an unknown type", (h) => h.send({ type: "connection/bye" }), "unknown variant `connection/bye`"],
  ];
  for (const [name, send, detail] of cases) {
    test(name, async () => {
      const host = startInProcess();
      send(host);
      await expectFatal(host, "failed to read code-mode client hello: ");
      expect(host.stderr()).toContain(detail);
      expect(host.frames.received).toEqual([]);
    });
  }
});

describe.concurrent("framing (§12.4, §12.5)", () => {
  test("a declared length over the limit fails before any payload", async () => {
    const host = startInProcess();
    host.sendRaw(prefix(83_886_081));
    await expectFatal(host, "code-mode IPC frame length 83886081 exceeds 67108864 bytes");
    expect(host.frames.received).toEqual([]);
  });

  test("immediate EOF → exit 0, no output", async () => {
    const host = startInProcess();
    host.closeStdin();
    const exit = await host.exit;
    expect(exit.code).toBe(0);
    expect(host.frames.received).toEqual([]);
  });

  test("EOF after 2 prefix bytes → exit 1", async () => {
    const host = startInProcess();
    host.sendRaw(Buffer.from([5, 0]));
    host.closeStdin();
    await expectFatal(host, "early eof");
  });

  test("EOF inside a payload after the handshake → exit 1", async () => {
    const host = await readyInProcess();
    host.sendRaw(Buffer.concat([prefix(10), Buffer.from("{")]));
    host.closeStdin();
    await expectFatal(host, "failed to read code-mode client message: early eof");
  });

  test("a bad frame after a good one in the same write fails at once, stdin still open", async () => {
    const host = startInProcess();
    host.sendRaw(Buffer.concat([encodeFrame(hello()), Buffer.from([1, 0, 0, 0, 0x7b])]));
    await expectFatal(host, "failed to read code-mode client message: failed to decode code-mode IPC frame: ");
    expect(host.frames.received.map((frame) => frame.type)).toEqual(["connection/ready"]);
  });

  test("a second hello is fatal", async () => {
    const host = await readyInProcess();
    host.send(hello());
    await expectFatal(host, "received a second code-mode client hello");
  });
});

describe("backpressure (§12.5)", () => {
  test("a second hello ends the connection while its output is blocked", async () => {
    // Nobody reads the output: the host's writer blocks once the stream is full.
    const host = startInProcess({ readOutput: false });
    host.send(hello());
    const big = "x".repeat(256 * 1024);
    for (let i = 0; i < 8; i++) host.send(request(100 + i, { method: "session/shutdown", sessionId: big }));
    expect(await until(() => host.outputBlocked())).toBe(true);
    host.send(hello());
    // Nobody will ever read: waiting for the output to drain would never end.
    const exit = await within(host.exit, "the connection to end");
    expect(exit.code).toBe(1);
    expect(host.stderr()).toContain("received a second code-mode client hello");
  });

  test("a client that never reads fails the host with a full outgoing queue", async () => {
    const host = startInProcess({ env: { SCV_HOST_MAX_OUTGOING_FRAMES: "64" }, readOutput: false });
    host.send(hello());
    const big = "y".repeat(64 * 1024);
    for (let i = 0; i < 200; i++) host.send(request(i + 1, { method: "session/shutdown", sessionId: big }));
    const exit = await host.exit;
    expect(exit.code).toBe(1);
    expect(host.stderr()).toContain("code-mode host outgoing queue is full");
  });
});

describe.concurrent("strict decoding after the handshake is fatal (§12.6)", () => {
  const ok = tool("t");
  const cases: [string, unknown, string][] = [
    ["unknown type", { type: "operation/nope", id: 1 }, "unknown variant `operation/nope`"],
    ["unknown method", request(2, { method: "session/nope", sessionId: "s1" }), "unknown variant `session/nope`"],
    [
      "unknown field in a tool definition",
      execute(2, "s1", "1", { tools: [{ ...(ok as object), extra: 1 }] }),
      "unknown field `extra`",
    ],
    [
      "unknown field in tool/result",
      { type: "delegate/response", id: 1, result: { status: "ok", value: { type: "tool/result", result: 1, x: 2 } } },
      "unknown field `x`",
    ],
    [
      "unknown field in an error result",
      { type: "delegate/response", id: 1, result: { status: "error", message: "m", code: 3 } },
      "unknown field `code`",
    ],
    ["tool/result without result", {
      type: "delegate/response",
      id: 1,
      result: { status: "ok", value: { type: "tool/result" } },
    }, "missing field `result`"],
    ["empty sessionId", open(2, ""), "identifier must not be empty"],
    ["whitespace sessionId", open(2, " \t"), "identifier must not be empty"],
    ["max_output_tokens beyond i32", execute(2, "s1", "1", { maxOutputTokens: 3_000_000_000 }), "expected i32"],
    ["negative wait maxOutputTokens", wait(2, "s1", "1", 10, -3), "invalid value: integer `-3`, expected usize"],
    ["negative catalog_revision", execute(2, "s1", "1", { catalogRevision: -1 }), "expected u64"],
    [
      "string id",
      { type: "operation/request", id: "2", request: { method: "session/shutdown", sessionId: "s1" } },
      "expected i64",
    ],
    [
      "fractional id",
      { type: "operation/request", id: 2.5, request: { method: "session/shutdown", sessionId: "s1" } },
      "expected i64",
    ],
    [
      "wait without yield_time_ms",
      request(2, { method: "session/wait", sessionId: "s1", request: { cell_id: "1" } }),
      "missing field `yield_time_ms`",
    ],
    ["outputTruncation Server", open(2, "s2", { outputTruncation: "Server" }), "unknown variant `Server`"],
    [
      "unknown field in cellExecutionLimits",
      open(2, "s2", { cellExecutionLimits: { maxCpu: 1 } }),
      "unknown field `maxCpu`",
    ],
    [
      "unknown kind",
      execute(2, "s1", "1", { tools: [{ ...(ok as object), kind: "other" }] }),
      "unknown variant `other`",
    ],
    [
      "null description",
      execute(2, "s1", "1", { tools: [{ ...(ok as object), description: null }] }),
      "expected a string",
    ],
    [
      "unknown result status",
      { type: "delegate/response", id: 1, result: { status: "maybe" } },
      "unknown variant `maybe`",
    ],
    ["not an object", [1, 2], "failed to decode code-mode IPC frame"],
  ];
  for (const [name, message, detail] of cases) {
    test(name, async () => {
      const host = await readyInProcess();
      host.send(open(1, "s1"));
      expect((await host.frames.next()).result.value.type).toBe("session/ready");
      host.send(message);
      await expectFatal(host, "failed to read code-mode client message: failed to decode code-mode IPC frame: ");
      expect(host.stderr()).toContain(detail);
      expect(host.frames.received.length).toBe(2);
    });
  }
});

// The real CLI over real pipes: what the in-process tests cannot see (exit codes, the `Error:`
// line, a process blocked on its stdout pipe). The Deno runs are in runtimes.test.ts.
describe.concurrent("process smoke tests (stdio)", () => {
  test("negotiates all five capabilities, then exits 0 at stdin EOF", async () => {
    const host = startHost();
    host.send(hello([...ALL_CAPABILITIES].reverse()));
    expect(await host.frames.next(10_000)).toEqual({
      type: "connection/ready",
      selectedVersion: 1,
      capabilities: ALL_CAPABILITIES,
    });
    host.closeStdin();
    expect((await host.exit).code).toBe(0);
  });

  test("immediate EOF → exit 0, no output", async () => {
    const host = startHost();
    host.closeStdin();
    expect((await host.exit).code).toBe(0);
    expect(host.frames.received).toEqual([]);
  });

  test("an undecodable hello → exit 1, one Error line, no output", async () => {
    const host = startHost();
    host.sendRaw(Buffer.from([1, 0, 0, 0, 0x7b]));
    const exit = await host.exit;
    expect(exit.code).toBe(1);
    expect(host.stderr()).toMatch(
      /^Error: failed to read code-mode client hello: failed to decode code-mode IPC frame: .+$/m,
    );
    expect(host.frames.received).toEqual([]);
  });

  test("an oversized prefix after the handshake → exit 1 without a payload", async () => {
    const host = await readyHost();
    host.sendRaw(prefix(83_886_081));
    const exit = await host.exit;
    expect(exit.code).toBe(1);
    expect(host.stderr()).toContain(
      "Error: failed to read code-mode client message: code-mode IPC frame length 83886081 exceeds 67108864 bytes",
    );
  });

  // Under Deno 2.9 the host with a full stdout pipe does not act on the second hello until the reader drains
  // (seen: no exit within 20 s); likely its node:process stdout writes to pipes block. Node-only until understood.
  test.skipIf(UNDER_DENO)("a second hello exits while nobody reads stdout", async () => {
    const host = startHost([], {}, false);
    host.send(hello());
    const big = "x".repeat(256 * 1024);
    for (let i = 0; i < 8; i++) host.send(request(100 + i, { method: "session/shutdown", sessionId: big }));
    // Our side of the pipe stopped reading: the host's writes back up behind it.
    const stdout = host.child.stdout;
    expect(await until(() => stdout.readableLength >= stdout.readableHighWaterMark)).toBe(true);
    host.send(hello());
    // Nobody will ever read: waiting for the output to drain would never end.
    const exit = await within(host.exit, "the host to exit");
    expect(exit.code).toBe(1);
    expect(host.stderr()).toContain("received a second code-mode client hello");
  });
});
