// Host spec §12 items 7–9: sessions, request ids and limits. In process (in_process.ts: the real
// stdio transport and connection, one real sandbox for the file); limits from the environment at
// startup run the real CLI.
import { afterAll, describe, expect, test } from "vitest";
import { RecentSet } from "../../lib/host/recent_set.ts";
import { MAX_RECENT_REQUEST_IDS, RequestRegistry } from "../../lib/host/request_registry.ts";
import { execute, killAllHosts, open, request, shutdown, terminate, wait } from "../support/frame_client.ts";
import { fileSandbox, readyInProcess, type TestHost } from "./in_process.ts";

const { sandbox, stop } = fileSandbox();
afterAll(async () => {
  killAllHosts();
  await stop();
});

function readyHost(optional: string[] = [], env: Record<string, string> = {}): Promise<TestHost> {
  return readyInProcess(optional, { env, sandbox });
}

const okResponse = (id: number, value: unknown) => ({
  type: "operation/response",
  id,
  result: { status: "ok", value },
});
const errResponse = (id: number, message: string) => ({
  type: "operation/response",
  id,
  result: { status: "error", message },
});

describe.concurrent("sessions (§12.7)", () => {
  test("open s1 and s2, shut both down, in order", async () => {
    const host = await readyHost();
    host.send(open(1, "s1"));
    host.send(open(2, "s2"));
    host.send(shutdown(3, "s1"));
    host.send(shutdown(4, "s2"));
    expect(await host.frames.take(4)).toEqual([
      okResponse(1, { type: "session/ready", sessionId: "s1" }),
      okResponse(2, { type: "session/ready", sessionId: "s2" }),
      okResponse(3, { type: "session/closed", sessionId: "s1" }),
      okResponse(4, { type: "session/closed", sessionId: "s2" }),
    ]);
    host.closeStdin();
    expect((await host.exit).code).toBe(0);
  });

  test("reopen, reuse, unknown sessions", async () => {
    const host = await readyHost();
    host.send(open(1, "s1"));
    await host.frames.next();
    host.send(open(2, "s1"));
    expect(await host.frames.next()).toEqual(errResponse(2, "code-mode session ID `s1` is already open"));
    host.send(shutdown(3, "s1"));
    expect(await host.frames.next()).toEqual(okResponse(3, { type: "session/closed", sessionId: "s1" }));
    host.send(open(4, "s1"));
    expect(await host.frames.next()).toEqual(errResponse(4, "code-mode session ID `s1` was reused"));
    host.send(shutdown(5, "s1"));
    expect(await host.frames.next()).toEqual(errResponse(5, "unknown code-mode session s1"));
    host.send(wait(6, "nope", "1", 10));
    host.send(terminate(7, "nope", "1"));
    host.send(shutdown(8, "nope"));
    host.send(execute(9, "nope", "text(1)"));
    const frames = await host.frames.take(4);
    expect(frames.sort((a, b) => a.id - b.id)).toEqual(
      [6, 7, 8, 9].map((id) => errResponse(id, "unknown code-mode session nope")),
    );
    // The connection lives on.
    host.send(open(10, " s "));
    expect(await host.frames.next()).toEqual(okResponse(10, { type: "session/ready", sessionId: " s " }));
    host.closeStdin();
    expect((await host.exit).code).toBe(0);
  });

  test("a session open with every option is accepted without capabilities", async () => {
    const host = await readyHost();
    host.send(
      open(1, "s1", {
        cellExecutionLimits: { maxYieldTimeMs: 250, maxHeapSizeBytes: 16777216 },
        outputTruncation: "server",
      }),
    );
    host.send(open(2, "s2", { cellExecutionLimits: null, outputTruncation: null }));
    host.send(open(3, "s3", { cellExecutionLimits: { maxYieldTimeMs: null }, outputTruncation: "client" }));
    expect((await host.frames.take(3)).map((f) => f.result.status)).toEqual(["ok", "ok", "ok"]);
    host.kill();
  });
});

describe.concurrent("request ids (§12.8)", () => {
  test("reusing a finished id is fatal", async () => {
    const host = await readyHost();
    host.send(open(1, "s1"));
    await host.frames.next();
    host.send(open(1, "s2"));
    const exit = await host.exit;
    expect(exit.code).toBe(1);
    expect(host.stderr()).toContain("duplicate code-mode request ID RequestId(1)");
    expect(host.frames.received.length).toBe(2);
  });

  test("an id rejected by a limit is remembered too", async () => {
    const host = await readyHost([], { SCV_HOST_MAX_IN_FLIGHT_REQUESTS: "0" });
    host.send(open(7, "s1"));
    expect(await host.frames.next()).toEqual(errResponse(7, "code-mode host has too many in-flight requests"));
    host.send(open(7, "s1"));
    expect((await host.exit).code).toBe(1);
    expect(host.stderr()).toContain("duplicate code-mode request ID RequestId(7)");
  });

  test("negative and large ids echo exactly", async () => {
    const host = await readyHost();
    host.send(open(-5, "s1"));
    host.send(open(9007199254740991, "s2"));
    host.send(open(-9007199254740991, "s3"));
    expect((await host.frames.take(3)).map((f) => f.id)).toEqual([-5, 9007199254740991, -9007199254740991]);
    host.kill();
  });

  test("ids beyond 2^53 echo exactly, up to the i64 bounds", async () => {
    const host = await readyHost();
    const frame = (text: string) => {
      const body = Buffer.from(text);
      const prefix = Buffer.alloc(4);
      prefix.writeUInt32LE(body.length);
      return Buffer.concat([prefix, body]);
    };
    const openText = (id: string, session: string) =>
      `{"type":"operation/request","id":${id},"request":{"method":"session/open","sessionId":"${session}"}}`;
    host.sendRaw(
      Buffer.concat([frame(openText("9223372036854775807", "max")), frame(openText("-9223372036854775808", "min"))]),
    );
    expect((await host.frames.take(2)).map((f) => f.id)).toEqual([9223372036854775807n, -9223372036854775808n]);
    host.sendRaw(frame(openText("9223372036854775808", "over")));
    expect((await host.exit).code).toBe(1);
    expect(host.stderr()).toContain("failed to read code-mode client message");
  });

  test("the registry keeps exactly the last 4,096 finished ids", () => {
    const registry = new RequestRegistry();
    const probe = { kind: "open" as const, cancel: new AbortController() };
    registry.start(-1n, probe);
    expect(() => registry.start(-1n, probe)).toThrow("duplicate code-mode request ID RequestId(-1)");
    registry.finish(-1n);
    for (let id = 1n; id <= BigInt(MAX_RECENT_REQUEST_IDS) + 100n; id++) {
      registry.start(id, { kind: "wait", cancel: new AbortController() });
      registry.finish(id);
    }
    expect(registry.active.size).toBe(0);
    expect(registry.recent.size).toBe(MAX_RECENT_REQUEST_IDS);
    expect(registry.isKnown(-1n)).toBe(false);
    expect(registry.isKnown(100n)).toBe(false);
    expect(registry.isKnown(101n)).toBe(true);
    expect(registry.isKnown(BigInt(MAX_RECENT_REQUEST_IDS) + 100n)).toBe(true);
  });

  test("RecentSet evicts in insertion order and ignores repeats", () => {
    const set = new RecentSet<string>(2);
    set.add("a");
    set.add("a");
    set.add("b");
    set.add("c");
    expect([set.has("a"), set.has("b"), set.has("c"), set.size]).toEqual([false, true, true, 2]);
  });

  test("session ids are remembered across 4,096 opens", async () => {
    const host = await readyHost();
    const total = 4097;
    // In groups, so that the shutdowns in flight stay below the in-flight limit.
    for (let first = 0; first < total; first += 100) {
      const group: unknown[] = [];
      for (let i = first; i < Math.min(total, first + 100); i++)
        group.push(open(i + 1, `s${i}`), shutdown(100_000 + i, `s${i}`));
      host.sendBatch(group);
      const answers = await host.frames.take(group.length, 20_000);
      expect(answers.every((frame) => frame.result.status === "ok")).toBe(true);
    }
    // s0 was pushed out of the FIFO by the 4,096 later ids; s1 is still remembered.
    host.send(open(200_001, "s1"));
    host.send(open(200_002, "s0"));
    expect(await host.frames.take(2)).toEqual([
      errResponse(200_001, "code-mode session ID `s1` was reused"),
      okResponse(200_002, { type: "session/ready", sessionId: "s0" }),
    ]);
    host.kill();
  });
});

describe.concurrent("limits (§12.9)", () => {
  test("active-cell limit 0 → non-fatal execute error, no cell id used", async () => {
    const host = await readyHost([], { SCV_HOST_MAX_ACTIVE_CELLS: "0" });
    host.send(open(1, "s1"));
    await host.frames.next();
    host.send(execute(2, "s1", "text('hello')"));
    expect(await host.frames.next()).toEqual(errResponse(2, "code-mode host has too many active cells"));
    host.send(shutdown(3, "s1"));
    expect(await host.frames.next()).toEqual(okResponse(3, { type: "session/closed", sessionId: "s1" }));
    host.kill();
  });

  test("in-flight limit 0 → non-fatal error for every request", async () => {
    const host = await readyHost([], { SCV_HOST_MAX_IN_FLIGHT_REQUESTS: "0" });
    host.send(open(1, "s1"));
    host.send(request(2, { method: "session/shutdown", sessionId: "s1" }));
    expect(await host.frames.take(2)).toEqual([
      errResponse(1, "code-mode host has too many in-flight requests"),
      errResponse(2, "code-mode host has too many in-flight requests"),
    ]);
    host.closeStdin();
    expect((await host.exit).code).toBe(0);
  });

  test("a burst of 600 quick requests in one write stays within the in-flight limit", async () => {
    const host = await readyHost();
    const burst: unknown[] = [];
    for (let i = 0; i < 300; i++) burst.push(open(i + 1, `b${i}`), wait(1000 + i, "nope", "1", 10));
    host.sendBatch(burst);
    const answers = await host.frames.take(600, 10_000);
    expect(answers.filter((f) => f.result.status === "ok").length).toBe(300);
    expect(answers.filter((f) => f.result.message === "unknown code-mode session nope").length).toBe(300);
    host.kill();
  });

  test("max_output_tokens -1 → admission error, no cell", async () => {
    const host = await readyHost();
    host.send(open(1, "s1"));
    await host.frames.next();
    host.send(execute(2, "s1", "text(1)", { maxOutputTokens: -1 }));
    expect(await host.frames.next()).toEqual(
      errResponse(2, "invalid code-mode execute request: number too small to fit in target type"),
    );
    // Found by scripts/conformance: the budget is checked before the session.
    host.send(execute(3, "nope", "text(1)", { maxOutputTokens: -1 }));
    expect(await host.frames.next()).toEqual(
      errResponse(3, "invalid code-mode execute request: number too small to fit in target type"),
    );
    host.kill();
  });

  test("catalog revision 0 and unknown revisions are admission errors", async () => {
    const host = await readyHost();
    host.send(open(1, "s1"));
    await host.frames.next();
    host.send(execute(2, "s1", "1", { catalogRevision: 0 }));
    expect(await host.frames.next()).toEqual(errResponse(2, "invalid code-mode catalog revision"));
    host.send(execute(3, "s1", "1", { catalogRevision: 4, tools: [] }));
    expect(await host.frames.next()).toEqual(errResponse(3, "unknown code-mode catalog revision"));
    host.kill();
  });

  test("an invalid limit variable fails at startup", async () => {
    const { startHost } = await import("../support/frame_client.ts");
    const host = startHost([], { SCV_HOST_MAX_ACTIVE_CELLS: "-1" });
    expect((await host.exit).code).toBe(1);
    expect(host.stderr()).toContain("SCV_HOST_MAX_ACTIVE_CELLS");
  });
});
