// The worker refuses to run cells when `import()` would not reject with the plain string (a
// runtime that ignores the dynamic-import callback would hand cells an error of its own realm).
import { Worker } from "node:worker_threads";
import { expect, it } from "vitest";
import { cellRuntime } from "../../lib/sandbox/runtime.ts";
import { WORKER_CODE } from "../../lib/sandbox/worker.ts";
import { CELL_PREFIX, CELL_SUFFIX, type FromWorker } from "../../lib/sandbox/worker_main.ts";

// Node only: Deno isolates import() without the flag, so the probe passes there.
it.skipIf("Deno" in globalThis)("without the dynamic-import callback (no --experimental-vm-modules) every cell is refused", async () => {
  const worker = new Worker(WORKER_CODE, {
    eval: true,
    workerData: { runtimeSource: String(cellRuntime), maxOutputChars: 1_000_000, cellPrefix: CELL_PREFIX, cellSuffix: CELL_SUFFIX, answerSpinUs: 0 },
    stdout: true,
  });
  try {
    const done = new Promise<FromWorker>((resolve) => {
      worker.on("message", (message: FromWorker) => {
        if (message.t === "done") resolve(message);
      });
    });
    worker.postMessage({ t: "start", cell: 1, source: "text('hi')", firstImport: null, tools: "[]", store: "{}" });
    expect(await done).toEqual({
      t: "done",
      cell: 1,
      e: "exec sandbox unavailable: this runtime cannot isolate import() in cells",
      w: "{}",
    });
  } finally {
    await worker.terminate();
  }
});
