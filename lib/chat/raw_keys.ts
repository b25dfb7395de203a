// The terminal in raw mode: keys decoded one by one, bracketed paste on (a mode switch, not a query, so pasted line
// breaks stay in the prompt), and both restored when the chat ends or is suspended with Ctrl-Z.
import { type Key, KeyReader } from "./keys.ts";

export type KeyTerminal = {
  input: NodeJS.ReadableStream & { setRawMode?: (raw: boolean) => unknown };
  output: NodeJS.WritableStream;
};

export type KeyHandlers = {
  key(key: Key): void;
  /** The input ended (Ctrl-D on a closed terminal, EOF). */
  end(): void;
  /** Reading failed: a closed terminal makes reads fail with EIO. */
  error(): void;
};

export class RawKeys {
  readonly #terminal: KeyTerminal;
  #raw = false;

  constructor(terminal: KeyTerminal) {
    this.#terminal = terminal;
  }

  start(handlers: KeyHandlers): void {
    const { input, output } = this.#terminal;
    input.setRawMode?.(true);
    this.#raw = true;
    input.on("error", () => handlers.error());
    input.setEncoding?.("utf8");
    const reader = new KeyReader();
    input.on("data", (data: string | Buffer) => {
      for (const key of reader.feed(typeof data === "string" ? data : data.toString("utf8"))) handlers.key(key);
    });
    output.write("\x1b[?2004h");
    input.once("end", () => handlers.end());
    input.resume();
  }

  /** Restores the terminal's modes (the terminal may be gone: the caller catches EIO). */
  stop(): void {
    if (!this.#raw) return;
    this.#raw = false;
    this.#terminal.input.setRawMode?.(false);
    this.#terminal.output.write("\x1b[?2004l");
  }

  /**
   * Ctrl-Z: gives the terminal back (cooked mode; the caller has cleared the live region) and stops like any job;
   * on `fg`, takes it again and calls `resumed`.
   */
  suspend(resumed: () => void): void {
    if (process.platform === "win32") return;
    const { input, output } = this.#terminal;
    output.write("\x1b[?2004l");
    input.setRawMode?.(false);
    process.once("SIGCONT", () => {
      if (!this.#raw) return;
      input.setRawMode?.(true);
      output.write("\x1b[?2004h");
      resumed();
    });
    // The whole process group, like a Ctrl-Z typed in cooked mode, so a wrapper (npm, a shell script) stops too.
    process.kill(0, "SIGTSTP");
  }
}
