// A sandbox process proves its restrictions before it runs a cell, and refuses every cell when one
// is off. Each test starts the process as the host does (its program as a file, Node's permission
// model), minus one layer, and expects the refusal that names it.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { encodeMessage, MessageDecoder } from "../../lib/sandbox/channel.ts";
import type { ChildConfig } from "../../lib/sandbox/child_main.ts";
import { childProgram, programFile } from "../../lib/sandbox/launch.ts";
import type { FromWorker } from "../../lib/sandbox/worker_main.ts";
import { HANG_MS } from "../support/wait.ts";

const isDeno = "Deno" in globalThis;
const dir = mkdtempSync(join(tmpdir(), "scv-selftest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SETTINGS = { maxOutputChars: 1_000_000, storeQuotaChars: 1_000_000 };
const PLAIN: ChildConfig = { expectNoNetwork: false, expectPidNamespace: false, expectEmptyRoot: false, hostFiles: [] };
const FLAGS = ["--permission", "--disallow-code-generation-from-strings", "--experimental-vm-modules", "--no-warnings"];

let programs = 0;

/** Starts a sandbox program with `flags`; from a file (as the host does) unless `inline` (`-e`). */
function start(config: ChildConfig, flags: string[], inline = false) {
  const program = childProgram(SETTINGS, config);
  let args: string[];
  if (inline) {
    args = [...flags, "-e", program];
  } else {
    const file = join(dir, `sandbox-${programs++}.cjs`);
    writeFileSync(file, programFile("node", program));
    args = [...flags, `--allow-fs-read=${file}`, file];
  }
  const child = spawn(process.execPath, args, { env: {}, stdio: ["pipe", "pipe", "inherit"] });
  const decoder = new MessageDecoder(1 << 20);
  const first = (types: string[]) =>
    new Promise<FromWorker>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no message from the sandbox process")), HANG_MS);
      child.stdout.on("data", (chunk: Buffer) => {
        for (const message of decoder.push(chunk) as FromWorker[]) {
          if (types.includes(message.t)) {
            clearTimeout(timer);
            resolve(message);
          }
        }
      });
    });
  return { child, first };
}

/** The reason a process started this way refuses to run cells (or null when it runs them). */
async function refusal(config: ChildConfig, flags: string[], inline = false): Promise<string | null> {
  const { child, first } = start(config, flags, inline);
  try {
    const message = await first(["refused", "idle"]);
    return message.t === "refused" ? message.v : null;
  } finally {
    child.kill("SIGKILL");
  }
}

// Node only: Deno isolates import() without the flag, so the probe passes there.
it.skipIf(isDeno)(
  "without the dynamic-import callback (no --experimental-vm-modules) every cell is refused",
  async () => {
    const { child, first } = start(PLAIN, FLAGS.filter((flag) => flag !== "--experimental-vm-modules"));
    try {
      const done = first(["done"]);
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

it.skipIf(isDeno)("started as the host starts it, the process passes its self-test", async () => {
  expect(await refusal(PLAIN, FLAGS)).toBeNull();
});

it.skipIf(isDeno)("under `node -e` (every built-in module a global, repl among them) it refuses", async () => {
  expect(await refusal(PLAIN, FLAGS, true)).toMatch(
    /^the sandbox process's realm can load modules \(.*\bfs\b.*\brepl\b.*\)$/,
  );
});

it.skipIf(isDeno)("when its realm can compile code from strings (and so import() anything) it refuses", async () => {
  expect(await refusal(PLAIN, FLAGS.filter((flag) => !flag.startsWith("--disallow-code-generation")))).toBe(
    "the sandbox process's realm can load modules (code from strings (import()))",
  );
});

it.skipIf(isDeno)("expecting an empty root, it refuses when the host's files are visible", async () => {
  const config = { ...PLAIN, expectEmptyRoot: true, hostFiles: [process.execPath] };
  expect(await refusal(config, FLAGS)).toBe(`the sandbox process can see the host's files (${process.execPath})`);
});

it.skipIf(isDeno)("expecting its own PID namespace, it refuses when other processes can be signalled", async () => {
  expect(await refusal({ ...PLAIN, expectPidNamespace: true }, FLAGS)).toBe(
    "the sandbox process can see and signal other processes (no PID namespace)",
  );
});
