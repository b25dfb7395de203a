// Host spec §12 items 19–20: output truncation is chosen per session and applied by the host
// in server mode (with the `Script error:` item). In process: the real stdio transport and
// connection over one real sandbox (in_process.ts).
import { afterAll, describe, expect, test } from "vitest";
import { execute, type Frame, open, terminate, wait } from "../support/frame_client.ts";
import { fileSandbox, readyInProcess } from "./in_process.ts";

const { sandbox, stop } = fileSandbox();
afterAll(stop);

const text = (value: string) => ({ type: "input_text", text: value });
const D4 = "0123456789".repeat(4);

function body(frame: Frame): Frame {
  const value = frame.result.value;
  if (frame.type === "execute/initialResponse") return Object.values(value)[0];
  return Object.values(Object.values(value.outcome)[0] as object)[0];
}

async function hostWith(sessions: Record<string, "client" | "server" | null>) {
  const host = await readyInProcess(["bounded-output-v1"], { sandbox });
  let id = 1;
  for (const [name, mode] of Object.entries(sessions)) {
    host.send(open(id++, name, mode === null ? {} : { outputTruncation: mode }));
    expect((await host.frames.next()).result.status).toBe("ok");
  }
  return host;
}

/** Runs `source` in `session` and returns the initial response's runtime body (Result expected). */
async function runCell(
  host: Awaited<ReturnType<typeof hostWith>>,
  id: number,
  session: string,
  source: string,
  budget: number | null,
) {
  host.send(execute(id, session, source, { maxOutputTokens: budget }));
  const frames = await host.frames.until((f) => f.type === "execute/initialResponse" && f.id === id);
  const initial = frames.at(-1);
  if (body(initial).error_text !== undefined) await host.frames.until((f) => f.type === "cell/closed");
  return body(initial);
}

describe.concurrent("output truncation", () => {
  test("output_selection_is_per_session (§12.19)", async () => {
    const host = await hostWith({ client: null, server: "server" });
    const source = "text('0123456789'.repeat(4)); yield_control(); text('0123456789'.repeat(8));";
    const expected = {
      client: [D4, "0123456789".repeat(8)],
      server: [
        "Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\n0123456789…5 tokens truncated…0123456789",
        "Warning: truncated output (original token count: 20)\nTotal output lines: 1\n\n01234567890123…13 tokens truncated…67890123456789",
      ],
    };
    let id = 10;
    for (const session of ["client", "server"] as const) {
      host.send(execute(id, session, source, { maxOutputTokens: 5 }));
      const [started, initial] = await host.frames.take(2);
      expect(started.result.value.type).toBe("execution/started");
      expect(Object.keys(initial.result.value)).toEqual(["Yielded"]);
      expect(body(initial).content_items).toEqual([text(expected[session][0]!)]);
      host.send(wait(id + 1, session, body(initial).cell_id, 60_000, 7));
      const [waited] = await host.frames.take(2);
      expect(waited.result.value.outcome.LiveCell.Result).toMatchObject({
        error_text: null,
        content_items: [text(expected[session][1]!)],
      });
      id += 2;
    }
    host.kill();
  });

  test("a wait does not inherit the execute's budget; a terminate uses its own (§12.20)", async () => {
    const host = await hostWith({ server: "server" });
    host.send(
      execute(
        2,
        "server",
        "yield_control(); await new Promise((r) => setTimeout(r, 100)); text('0123456789'.repeat(8))",
        { maxOutputTokens: 5 },
      ),
    );
    const [, yielded] = await host.frames.take(2);
    expect(body(yielded).content_items).toEqual([]);
    host.send(wait(3, "server", "1", 60_000));
    expect(body(await host.frames.next()).content_items).toEqual([text("0123456789".repeat(8))]);
    await host.frames.next();
    host.send(
      execute(
        4,
        "server",
        "yield_control(); text('0123456789'.repeat(4)); notify('appended'); await new Promise(() => {})",
      ),
    );
    await host.frames.take(2);
    // The notification follows the text: once it is here, the text is in the cell's buffer.
    const notification = await host.frames.next();
    expect(notification.request).toMatchObject({ type: "notification/send", text: "appended" });
    host.send({
      type: "delegate/response",
      id: notification.id,
      result: { status: "ok", value: { type: "notification/delivered" } },
    });
    host.send(terminate(5, "server", "2", 3));
    const frames = await host.frames.take(2);
    const terminated = frames.find((f) => f.id === 5);
    expect(terminated.result.value.outcome.LiveCell.Terminated.content_items).toEqual([
      text(
        "Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\n012345…7 tokens truncated…456789",
      ),
    ]);
    host.kill();
  });

  test("Script error items appear in server mode only, MissingCell included (§12.20)", async () => {
    const host = await hostWith({ client: "client", server: "server" });
    const source = "text('before'); throw new Error('boom')";
    const error = "Error: boom\n    at exec_main.mjs:1:23";
    const server = await runCell(host, 10, "server", source, null);
    expect(server).toMatchObject({
      error_text: error,
      content_items: [text("before"), text(`Script error:\n${error}`)],
    });
    const client = await runCell(host, 11, "client", source, null);
    expect(client).toMatchObject({ error_text: error, content_items: [text("before")] });
    const bare = await runCell(host, 12, "server", "throw 'bare'", 10_000);
    expect(bare).toMatchObject({ error_text: "bare", content_items: [text("Script error:\nbare")] });
    host.send(wait(13, "server", "99", 10));
    host.send(wait(14, "client", "99", 10));
    const [serverMissing, clientMissing] = (await host.frames.take(2)).sort((a, b) => a.id - b.id);
    expect(serverMissing.result.value.outcome.MissingCell.Result.content_items).toEqual([
      text("Script error:\nexec cell 99 not found"),
    ]);
    expect(clientMissing.result.value.outcome.MissingCell.Result.content_items).toEqual([]);
    // Found by scripts/conformance: a MissingCell's Script error item is truncated like any output.
    host.send(wait(15, "server", "9", 10, 3));
    expect((await host.frames.next()).result.value.outcome.MissingCell.Result.content_items).toEqual([
      text(
        "Warning: truncated output (original token count: 9)\nTotal output lines: 2\n\nScript…6 tokens truncated… found",
      ),
    ]);
    host.kill();
  });

  test("the worked examples of §9 through the host", async () => {
    const host = await hostWith({ server: "server" });
    const rows: [string, number, unknown[]][] = [
      [
        "text('A'.repeat(400)); text('B'.repeat(400) + ' tail-marker')",
        30,
        [
          text(
            "Warning: truncated output (original token count: 204)\nTotal output lines: 2\n\n" +
              "A".repeat(60) + "…174 tokens truncated…" + "B".repeat(48) + " tail-marker",
          ),
        ],
      ],
      [
        "text('abcdefgh'); text('ij')",
        0,
        [text("Warning: truncated output (original token count: 3)\nTotal output lines: 2\n\n…3 tokens truncated…")],
      ],
      [
        "text('é'.repeat(20))",
        3,
        [text(
          "Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\nééé…7 tokens truncated…ééé",
        )],
      ],
      [
        `text('${D4}'); image('data:image/png;base64,AAAA'); text('${D4}'); text('zz')`,
        15,
        [
          text(D4),
          { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "high" },
          text("0123456789…5 tokens truncated…0123456789"),
          text("[omitted 1 text items ...]"),
        ],
      ],
      ["text(''); text('short')", 10, [text(""), text("short")]],
    ];
    let id = 10;
    for (const [source, budget, expected] of rows) {
      const result = await runCell(host, id++, "server", source, budget);
      expect(result.content_items, source).toEqual(expected);
    }
    host.kill();
  });
});
