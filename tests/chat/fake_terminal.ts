// An in-memory terminal for the real ChatApp: raw-mode input the test types into, and output it can wait on.
import { PassThrough, Writable } from "node:stream";
import { ChatApp } from "../../lib/chat/app.ts";
import { prepareOptions } from "../../lib/embed/session_options.ts";
import { stripAnsi } from "../../lib/render/style.ts";
import type { ConfigSandbox } from "../support/config_files.ts";
import type { FakeProvider } from "../support/fake_provider.ts";
import { HANG_MS, settle as settleTurns } from "../support/wait.ts";

export type FakeTerminal = ReturnType<typeof fakeTerminal>;

export function fakeTerminal() {
  let written = "";
  const rawModes: boolean[] = [];
  const waiters: Array<{ test: (text: string) => boolean; resolve: () => void }> = [];
  const output = new Writable({
    write(chunk, _encoding, callback) {
      written += chunk.toString();
      const text = stripAnsi(written);
      for (const waiter of [...waiters]) {
        if (waiter.test(text)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      callback();
    },
  });
  const input = Object.assign(new PassThrough(), { setRawMode: (raw: boolean) => rawModes.push(raw), isTTY: true });
  /** Waits until the plain output (escape codes removed) passes `test`, or fails after a deadline. */
  const until = (test: (text: string) => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(stripAnsi(written).slice(-600))}`)),
        HANG_MS,
      );
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (test(stripAnsi(written))) done();
      else waiters.push({ test, resolve: done });
    });
  const seen = (needle: string) => until((text) => text.includes(needle), JSON.stringify(needle));
  /** Lets the chat take in what was typed so far: the input's data events, then whatever they started. */
  const settle = () => settleTurns(10);
  return { input, output, rawModes, seen, until, settle, written: () => written, text: () => stripAnsi(written) };
}

/** The chat on a fake terminal, talking to the fake provider. */
export function startChat(
  term: FakeTerminal,
  sandbox: ConfigSandbox,
  provider: FakeProvider,
  options: { historyPath?: string; color?: boolean; columns?: number } = {},
) {
  const env = sandbox.env({ OPENAI_API_KEY: "k", SCV_BASE_URL: provider.url, SCV_MODEL: "fake-model" });
  const app = new ChatApp({
    terminal: {
      input: term.input,
      output: term.output,
      interactive: true,
      color: options.color ?? true,
      columns: () => options.columns ?? 80,
      rows: () => 24,
    },
    flags: {},
    cwd: sandbox.workspace,
    prepare: (flags) => prepareOptions(flags, env, sandbox.workspace),
    historyPath: options.historyPath,
  });
  return { app, running: app.run() };
}
