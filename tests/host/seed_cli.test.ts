// The scenarios of seeds/host_tests.rs through the real CLI over real pipes, a few host processes
// for all of them (the rules themselves are tested in process in the other files). Elsewhere on
// the CLI: the rejected handshakes in runtimes.test.ts (Node and Deno), the backpressured writer
// in handshake.test.ts; the request registry and task-failure seeds are unit tests.
import { afterAll, describe, expect, test } from "vitest";
import { execute, hello, killAllHosts, open, readyHost, shutdown, startHost, wait } from "../support/frame_client.ts";
import { HANG_MS } from "../support/wait.ts";

afterAll(killAllHosts);

const ok = (id: number, value: unknown) => ({ type: "operation/response", id, result: { status: "ok", value } });
const text = (value: string) => ({ type: "input_text", text: value });
const BOUNDED = ["bounded-output-v1", "delegate-capacity-4096", "session-cell-execution-resource-limits"];

describe.concurrent("seeds/host_tests.rs on the CLI", () => {
  test("ordered session lifecycles, no reuse after shutdown, output per session, an execute id active until its answer", async () => {
    const host = await readyHost();
    // handshake_and_multiple_session_lifecycles_are_ordered
    host.send(open(1, "session-1"));
    host.send(open(2, "session-2"));
    host.send(shutdown(3, "session-1"));
    host.send(shutdown(4, "session-2"));
    expect(await host.frames.take(4)).toEqual([
      ok(1, { type: "session/ready", sessionId: "session-1" }),
      ok(2, { type: "session/ready", sessionId: "session-2" }),
      ok(3, { type: "session/closed", sessionId: "session-1" }),
      ok(4, { type: "session/closed", sessionId: "session-2" }),
    ]);
    // session_id_cannot_be_reused_after_shutdown
    host.send(open(5, "session-1"));
    expect(await host.frames.next()).toEqual({
      type: "operation/response",
      id: 5,
      result: { status: "error", message: "code-mode session ID `session-1` was reused" },
    });
    // output_selection_is_per_session
    host.send(open(6, "client"));
    host.send(open(7, "server", { outputTruncation: "server" }));
    await host.frames.take(2);
    const source = "text('0123456789'.repeat(4)); yield_control(); text('0123456789'.repeat(8));";
    for (
      const [id, name, expectedYield, expectedWait] of [
        [10, "client", "0123456789".repeat(4), "0123456789".repeat(8)],
        [
          20,
          "server",
          "Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\n0123456789…5 tokens truncated…0123456789",
          "Warning: truncated output (original token count: 20)\nTotal output lines: 1\n\n01234567890123…13 tokens truncated…67890123456789",
        ],
      ] as const
    ) {
      host.send(execute(id, name, source, { yieldTimeMs: 10 * HANG_MS, maxOutputTokens: 5 }));
      const [started, yielded] = await host.frames.take(2);
      expect(started).toEqual(ok(id, { type: "execution/started", cellId: "1" }));
      expect(yielded.result.value.Yielded.content_items).toEqual([text(expectedYield)]);
      host.send(wait(id + 1, name, "1", 60_000, 7));
      const waited = await host.frames.next();
      expect(waited.result.value.outcome.LiveCell.Result).toMatchObject({
        content_items: [text(expectedWait)],
        error_text: null,
      });
      expect(await host.frames.next()).toEqual({ type: "cell/closed", sessionId: name, cellId: "1" });
    }
    // execute_request_id_remains_active_until_initial_response
    host.send(execute(30, "client", "await new Promise(() => {})", { yieldTimeMs: 10 * HANG_MS }));
    expect(await host.frames.next()).toEqual(ok(30, { type: "execution/started", cellId: "2" }));
    host.send(execute(30, "client", "text(1)"));
    const exit = await host.exit;
    expect(exit.code).toBe(1);
    expect(host.stderr()).toContain("Error: duplicate code-mode request ID RequestId(30)");
  });

  test("active_cell_limit_rejects_execute_without_disconnecting", async () => {
    const host = await readyHost([], { SCV_HOST_MAX_ACTIVE_CELLS: "0" });
    host.send(open(1, "session-1"));
    await host.frames.next();
    host.send(execute(2, "session-1", 'text("hello");'));
    expect(await host.frames.next()).toEqual({
      type: "operation/response",
      id: 2,
      result: { status: "error", message: "code-mode host has too many active cells" },
    });
    host.send(open(3, "session-2"));
    expect(await host.frames.next()).toEqual(ok(3, { type: "session/ready", sessionId: "session-2" }));
    host.closeStdin();
    expect((await host.exit).code).toBe(0);
  });

  for (
    const [form, optional, required] of [
      ["optional", BOUNDED, []],
      ["required", [], BOUNDED],
    ] as const
  ) {
    test(`supported_capabilities_are_negotiated_when_${form}`, async () => {
      const host = startHost();
      host.send(hello([...optional], [...required]));
      expect(await host.frames.next(10_000)).toEqual({
        type: "connection/ready",
        selectedVersion: 1,
        capabilities: BOUNDED,
      });
      host.closeStdin();
      expect((await host.exit).code).toBe(0);
    });
  }
});
