// A sandbox process refuses to run cells when `import()` would not reject with the plain string
// (a runtime that ignores the dynamic-import callback would hand cells an error of its own realm).
// The process is started as the host starts it, minus the flag that enables the callback.
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { encodeMessage, MessageDecoder } from "../../lib/sandbox/channel.ts";
import { childProgram } from "../../lib/sandbox/launch.ts";
import type { FromWorker } from "../../lib/sandbox/worker_main.ts";

// Node only: Deno isolates import() without the flag, so the probe passes there.
it.skipIf("Deno" in globalThis)(
  "without the dynamic-import callback (no --experimental-vm-modules) every cell is refused",
  async () => {
    const program = childProgram({ maxOutputChars: 1_000_000, storeQuotaChars: 1_000_000 }, { expectNoNetwork: false });
    const child = spawn(process.execPath, ["--permission", "--no-warnings", "-e", program], {
      env: {},
      stdio: ["pipe", "pipe", "inherit"],
    });
    try {
      const decoder = new MessageDecoder(1 << 20);
      const done = new Promise<FromWorker>((resolve) => {
        child.stdout.on("data", (chunk: Buffer) => {
          for (const message of decoder.push(chunk) as FromWorker[]) if (message.t === "done") resolve(message);
        });
      });
      const start = {
        t: "start",
        cell: 1,
        source: "text('hi')",
        firstImport: null,
        tools: "[]",
        store: "{}",
        storeSize: 0,
      };
      child.stdin.write(encodeMessage(start));
      expect(await done).toEqual({
        t: "done",
        cell: 1,
        e: "exec sandbox unavailable: this runtime cannot isolate import() in cells",
        w: "{}",
      });
    } finally {
      child.kill("SIGKILL");
    }
  },
);
