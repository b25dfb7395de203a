// The real ChatApp in interactive mode over an in-memory terminal (its engine talking to the fake SSE provider on
// 127.0.0.1): what it writes to the terminal, byte for byte.
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ChatApp } from "../../lib/chat/app.ts";
import { prepareOptions } from "../../lib/embed/session_options.ts";
import { stripAnsi } from "../../lib/render/style.ts";
import { useSandboxAndProvider } from "../support/config_files.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { HANG_MS } from "../support/wait.ts";

const fixture = useSandboxAndProvider();

function terminal() {
  let written = "";
  const rawModes: boolean[] = [];
  const waiters: Array<{ needle: string; resolve: () => void }> = [];
  const output = new Writable({
    write(chunk, _encoding, callback) {
      written += chunk.toString();
      for (const waiter of [...waiters]) {
        if (stripAnsi(written).includes(waiter.needle)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      callback();
    },
  });
  const input = Object.assign(new PassThrough(), { setRawMode: (raw: boolean) => rawModes.push(raw), isTTY: true });
  const seen = (needle: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${needle}: ${JSON.stringify(stripAnsi(written).slice(-400))}`)),
        HANG_MS,
      );
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (stripAnsi(written).includes(needle)) done();
      else waiters.push({ needle, resolve: done });
    });
  return { input, output, rawModes, seen, written: () => written };
}

describe("chat in a terminal", () => {
  it("writes inline: no alternate screen, no terminal queries, raw mode and bracketed paste restored at exit", async () => {
    fixture.provider.push(
      toolCallResponse([{ call_id: "c1", name: "bash", arguments: { command: "echo inline; true" } }]),
      textResponse(["## Done\n- ok"]),
    );
    const term = terminal();
    const env = fixture.sandbox.env({
      OPENAI_API_KEY: "k",
      SCV_BASE_URL: fixture.provider.url,
      SCV_MODEL: "fake-model",
    });
    const app = new ChatApp({
      terminal: {
        input: term.input,
        output: term.output,
        interactive: true,
        color: true,
        columns: () => 80,
        rows: () => 24,
      },
      flags: {},
      cwd: fixture.sandbox.workspace,
      prepare: (flags) => prepareOptions(flags, env, fixture.sandbox.workspace),
      historyPath: undefined,
    });
    const running = app.run();
    await term.seen("ready");
    term.input.write("run it\r");
    await term.seen("[a]lways for this session");
    term.input.write("y\r");
    await term.seen("· done in 2 steps");
    term.input.write("\x04");
    expect(await running).toBe(0);
    const out = term.written();
    // Alternate screen (1049/47/1047), cursor position reports, device attributes, colour or mode queries.
    expect(out).not.toMatch(/\x1b\[\?(1049|1047|47)h/);
    expect(out).not.toMatch(/\x1b\[[0-9;]*[?>=]?[0-9;]*[nc]|\x1b\[\?[0-9;]*\$p|\x1b\][0-9]+;\?/);
    expect(stripAnsi(out)).toContain("✓ inline");
    expect(term.rawModes).toEqual([true, false]);
    expect(out.lastIndexOf("\x1b[?2004h")).toBeLessThan(out.lastIndexOf("\x1b[?2004l"));
    // The cursor is visible again at the end.
    expect(out.endsWith("\x1b[?25h")).toBe(true);
  });
});
