// The chat's status line while a turn runs (issue 22), with the real ChatApp in interactive mode over an in-memory
// terminal and its engine talking to the fake SSE provider on 127.0.0.1: the elapsed time ticks without events, a
// spinner turns until the first token, a retry counts down, and the context in use shows after the turn.
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ChatApp } from "../../lib/chat/app.ts";
import { prepareOptions } from "../../lib/embed/session_options.ts";
import { stripAnsi } from "../../lib/render/style.ts";
import { useSandboxAndProvider } from "../support/config_files.ts";
import { textResponse } from "../support/fake_provider.ts";
import { waitFor } from "../support/wait.ts";

const fixture = useSandboxAndProvider();

const UNICODE_SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for the model/g;

function startChat(color: boolean) {
  let written = "";
  const output = new Writable({
    write(chunk, _encoding, callback) {
      written += chunk.toString();
      callback();
    },
  });
  const input = Object.assign(new PassThrough(), { setRawMode: () => {}, isTTY: true });
  const env = fixture.sandbox.env({ OPENAI_API_KEY: "k", SCV_BASE_URL: fixture.provider.url, SCV_MODEL: "fake-model" });
  const app = new ChatApp({
    terminal: { input, output, interactive: true, color, columns: () => 120, rows: () => 24 },
    flags: {},
    cwd: fixture.sandbox.workspace,
    prepare: (flags) => prepareOptions(flags, env, fixture.sandbox.workspace),
    historyPath: undefined,
  });
  const running = app.run();
  const text = () => stripAnsi(written);
  const seen = (needle: string | RegExp, what: string) =>
    waitFor(() => (typeof needle === "string" ? text().includes(needle) : needle.test(text())), {
      timeoutMs: 8000,
      what: `${what}: ${JSON.stringify(text().slice(-300))}`,
    });
  return { input, running, text, raw: () => written, seen };
}

describe("chat status line", () => {
  it("spins and counts the seconds until the first token, then shows the context in use", async () => {
    await fixture.sandbox.writeUserConfig("[context]\nmax_tokens = 32000\n");
    fixture.provider.push(
      textResponse(["hello there"], { input_tokens: 12_000, output_tokens: 300 }, { headerDelayMs: 1300 }),
    );
    const chat = startChat(true);
    await chat.seen("ready", "the session");
    chat.input.write("hi\r");
    await chat.seen("waiting for the model 0s", "the spinner at 0 s");
    // Nothing arrives for 1.3 s: the line still moves on by itself.
    await chat.seen("waiting for the model 1s", "the elapsed time ticking");
    await chat.seen("· done in 1 step", "the end of the turn");
    const frames = new Set([...chat.text().matchAll(UNICODE_SPINNER)].map((match) => match[0][0]));
    expect(frames.size).toBeGreaterThanOrEqual(2);
    await chat.seen("context 12.3k / 32k tokens", "the context in use");
    // The turn is over: no spinner or elapsed time after it.
    const after = chat.text().slice(chat.text().lastIndexOf("done in 1 step"));
    expect(after).not.toMatch(/waiting for the model|working \d/);
    chat.input.write("\x04");
    expect(await chat.running).toBe(0);
  });

  it("counts a provider retry down in the status line", async () => {
    fixture.provider.push(
      {
        status: 429,
        reason: "Too Many Requests",
        headers: { "retry-after-ms": "1800" },
        body: { error: { message: "slow down", type: "rate_limit_error" } },
      },
      textResponse(["made it"]),
    );
    const chat = startChat(true);
    await chat.seen("ready", "the session");
    chat.input.write("hi\r");
    await chat.seen("retrying 1/3 in 2 s: HTTP 429", "the retry notice");
    await chat.seen("retrying 1/3 in 1 s: HTTP 429", "the countdown");
    await chat.seen("made it", "the answer after the retry");
    // Ctrl-D exits from the prompt: the turn ends (its workspace snapshot taken) first.
    await chat.seen("· done in 1 step", "the end of the turn");
    chat.input.write("\x04");
    expect(await chat.running).toBe(0);
  });

  it("without colour (NO_COLOR) writes no colour codes and spins in ASCII", async () => {
    fixture.provider.push(textResponse(["plain"], undefined, { headerDelayMs: 500 }));
    const chat = startChat(false);
    await chat.seen("ready", "the session");
    chat.input.write("hi\r");
    await chat.seen(/[|/\\-] waiting for the model/, "the ASCII spinner");
    await chat.seen("· done in 1 step", "the end of the turn");
    chat.input.write("\x04");
    expect(await chat.running).toBe(0);
    expect(chat.raw()).not.toMatch(/\x1b\[[0-9;]*m/);
    expect(chat.text()).not.toMatch(UNICODE_SPINNER);
  });
});
