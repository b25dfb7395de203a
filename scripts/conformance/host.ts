// Differential runs: the same scripted framed sessions against `scv host` and the reference
// `codex-code-mode-host` (@openai/codex@0.171.0), frames compared modulo timings.
//
//   CODEX_HOST_BIN=/path/to/codex-code-mode-host node scripts/conformance/host.ts [filter]
//
// Not part of CI. Exits 0 when every scenario matches, 1 on a difference, 0 with a notice
// when the reference binary is absent.
import { existsSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { encodeFrame } from "../../lib/codec/index.ts";
import { type Frame, type HostProcess, MAIN, startFramedProcess } from "../../tests/support/frame_client.ts";
import { scenarios, type Script } from "./scenarios.ts";

export interface Transcript {
  frames: Frame[];
  exitCode: number | null;
  /** The `Error: …` line, with the reference's "Caused by" chain joined by ": ". */
  error: string | null;
}

/** Normalizes a fatal error report of either host to one comparable line. */
export function errorLine(stderr: string): string | null {
  const start = stderr.indexOf("Error: ");
  if (start < 0) return null;
  let text = stderr.slice(start);
  const backtrace = text.indexOf("\n\nStack backtrace");
  if (backtrace >= 0) text = text.slice(0, backtrace);
  text = text.replace(/\n\nCaused by:\n\s+(?:\d+: )?/g, ": ").replace(/\n\s+\d+: /g, ": ");
  return text.split("\n")[0]!.replace(/ at line \d+ column \d+/g, "");
}

/** The client a scenario drives: sends frames, reads them, and records everything. */
export class Driver {
  readonly host: HostProcess;
  readonly transcript: Frame[] = [];

  constructor(host: HostProcess) {
    this.host = host;
  }

  send(...messages: unknown[]): void {
    this.host.sendBatch(messages);
  }

  raw(bytes: Uint8Array): void {
    this.host.sendRaw(bytes);
  }

  /** Reads `count` frames into the transcript and returns them. */
  async read(count: number, timeoutMs = 15_000): Promise<Frame[]> {
    const frames = await this.host.frames.take(count, timeoutMs);
    this.transcript.push(...frames);
    return frames;
  }

  /** Reads frames until none arrives for `quietMs`. */
  async settle(quietMs = 300): Promise<Frame[]> {
    const frames: Frame[] = [];
    for (;;) {
      const frame = await this.host.frames.next(quietMs).catch(() => undefined);
      if (frame === undefined) break;
      frames.push(frame);
    }
    this.transcript.push(...frames);
    return frames;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

/**
 * Timings vary: keep only whether a duration is a non-negative integer, and whether buffering was > 0.
 * An oversized response's error names its encoded length, which holds its duration's digits: lengths
 * are compared to the nearest hundred.
 */
export function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value === "string") {
    return value.replace(
      /IPC frame length (\d+) exceeds/,
      (_, length: string) => `IPC frame length ~${Math.round(Number(length) / 100) * 100} exceeds`,
    );
  }
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === "code_mode_host_duration_ns")
      out[key] = Number.isInteger(field) && (field as number) >= 0 ? "<ns>" : field;
    else if (key === "result_buffered_for_ns") out[key] = field === 0 ? 0 : "<positive>";
    else out[key] = normalize(field);
  }
  return out;
}

/** Frames of concurrent requests may legitimately interleave: compare sorted when asked. */
function canonical(frames: Frame[], unordered: boolean): unknown[] {
  const normalized = frames.map(normalize);
  if (!unordered) return normalized;
  return normalized.map((f) => JSON.stringify(f)).sort();
}

export async function runScript(script: Script, command: string, args: string[]): Promise<Transcript> {
  const host = startFramedProcess(command, args);
  const driver = new Driver(host);
  try {
    try {
      await script.run(driver);
    } catch (error) {
      // A host that ended early or stayed silent: record it and compare what was received.
      driver.transcript.push({ scriptStopped: (error as Error).message.replace(/\d+ ms/, "<ms>") });
    }
    if (!host.child.stdin.writableEnded) host.closeStdin();
    const exit = await Promise.race([host.exit, driver.sleep(5_000).then(() => null)]);
    if (exit === null) host.kill();
    await driver.settle(50);
    return { frames: driver.transcript, exitCode: exit?.code ?? null, error: errorLine(host.stderr()) };
  } finally {
    host.kill();
  }
}

function firstDifference(a: unknown[], b: unknown[]): string {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (!isDeepStrictEqual(a[i], b[i])) {
      return `frame ${i}:\n    scv:       ${JSON.stringify(a[i])}\n    reference: ${JSON.stringify(b[i])}`;
    }
  }
  return "";
}

async function main(): Promise<number> {
  const reference = process.env.CODEX_HOST_BIN;
  if (!reference || !existsSync(reference)) {
    process.stdout.write(
      "skipped: set CODEX_HOST_BIN to the reference codex-code-mode-host binary " +
        "(npm install @openai/codex@0.171.0; node_modules/@openai/codex-linux-x64/vendor/*/bin/codex-code-mode-host)\n",
    );
    return 0;
  }
  const filter = process.argv[2];
  let failures = 0;
  for (const script of scenarios) {
    if (filter && !script.name.includes(filter)) continue;
    const [ours, theirs] = await Promise.all([
      runScript(script, process.execPath, [MAIN, "host"]),
      runScript(script, reference, []),
    ]);
    const a = canonical(ours.frames, script.unordered ?? false);
    const b = canonical(theirs.frames, script.unordered ?? false);
    const same = isDeepStrictEqual(a, b) && ours.exitCode === theirs.exitCode;
    if (same) {
      process.stdout.write(`ok    ${script.name}\n`);
      if (ours.error !== theirs.error) {
        // JSON syntax errors are worded by the JSON parser of each host; everything else should match.
        process.stdout.write(
          `  note: error text differs\n    scv:       ${ours.error}\n    reference: ${theirs.error}\n`,
        );
      }
    } else {
      failures++;
      process.stdout.write(`DIFF  ${script.name}\n`);
      if (ours.exitCode !== theirs.exitCode)
        process.stdout.write(`  exit: scv ${ours.exitCode}, reference ${theirs.exitCode}\n`);
      const detail = firstDifference(a, b);
      if (detail) process.stdout.write(`  ${detail}\n`);
    }
  }
  process.stdout.write(failures === 0 ? "all scenarios match\n" : `${failures} scenario(s) differ\n`);
  return failures === 0 ? 0 : 1;
}

if (import.meta.main) {
  process.exitCode = await main();
  process.exit();
}

export { encodeFrame };
