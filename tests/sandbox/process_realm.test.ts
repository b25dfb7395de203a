// Code that has escaped its cell, running in the sandbox process's own realm: the process is
// started exactly as the host starts it (same command, flags, environment, working folder,
// namespaces and program file), but its cell host is replaced by attacker code that holds what the
// real cell host holds (the `require` it is handed) and tries every other way the realm might
// offer. Everything it tries must fail. No test hook ships in the product: the test writes the
// attacker's program itself from the same start code (childMain) over the program file.
import { spawn } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MessageDecoder } from "../../lib/sandbox/channel.ts";
import { childMain } from "../../lib/sandbox/child_main.ts";
import { prepareLaunch, programFile } from "../../lib/sandbox/launch.ts";
import { niceOf } from "../support/live_processes.ts";
import { HANG_MS } from "../support/wait.ts";

const isDeno = "Deno" in globalThis;
let server: Server;
let connections = 0;
let port = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => server.close());

/** A Node process of the same user that escaped code tries to debug, signal and renice. */
function startVictim() {
  const victim = spawn(process.execPath, ["--inspect-port=0", "-e", "setInterval(() => {}, 1000)"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  victim.stderr.setEncoding("utf8");
  victim.stderr.on("data", (chunk: string) => (stderr += chunk));
  return { victim, stderr: () => stderr, nice: () => niceOf(victim.pid!) };
}

/** Runs in the sandbox process after its self-test; reports every attempt that did not fail. */
const ATTACK = (port: number, victim: number, planted: string) =>
  `(r, channel) => {
  const got = [];
  const attempt = (name, fn) => { try { const v = fn(); got.push(name + ": " + String(v).slice(0, 80)) } catch {} };
  const g = globalThis;
  // Every way to a module the realm might offer.
  const routes = {
    "the require handed to the cell host": (id) => r(id),
    "process.getBuiltinModule": (id) => process.getBuiltinModule(id),
    "process.mainModule": (id) => process.mainModule.require(id),
    "a global require": (id) => g.require(id),
    "a global module": (id) => g.module.require(id),
    "the repl global": (id) => { const s = new (g.repl.REPLServer)({ input: new (g.stream.PassThrough)(), output: new (g.stream.PassThrough)(), terminal: false }); return s.context.require(id) },
    "process.binding": (id) => process.binding(id.replace("node:", "")),
    "a function from a string": (id) => Function("return require")()(id),
  };
  const modules = {};
  for (const [route, load] of Object.entries(routes)) {
    for (const id of ["node:sqlite", "node:os", "node:fs", "node:child_process"]) {
      try { const m = load(id); if (m) { modules[id] ??= m; got.push("loaded " + id + " through " + route) } } catch {}
    }
  }
  let imported = Promise.resolve();
  try { imported = Function("return import('node:sqlite')")().then((m) => { modules["node:sqlite"] ??= m; got.push("imported node:sqlite") }, () => {}) } catch {}
  attempt("code from strings", () => (0, eval)("1"));
  attempt("debug the victim (SIGUSR1)", () => { process._debugProcess(${victim}); return "sent" });
  attempt("signal the victim", () => process.kill(${victim}, 0));
  attempt("signal any process", () => process.kill(-1, 0));
  attempt("signal through the raw binding", () => process._kill(${victim}, 0));
  attempt("load an addon", () => process.dlopen({ exports: {} }, "/nonexistent.node"));
  attempt("replace the process", () => process.execve("/bin/true"));
  attempt("change folder", () => { process.chdir("/"); return process.cwd() });
  attempt("open the host's stdout", () => modules["node:fs"].openSync("/proc/" + process.ppid + "/fd/1", "w"));
  attempt("start a worker", () => new (g.worker_threads.Worker)("1", { eval: true }));
  const env = Object.keys(process.env);
  if (env.length > 0) got.push("environment: " + env.join(","));
  // No module for the network either: fetch is a global.
  const fetched = typeof fetch === "function"
    ? fetch("http://127.0.0.1:${port}/").then(() => got.push("fetched from the host's loopback"), () => {})
    : undefined;
  // Reports once the import and the fetch have an outcome, whichever it is.
  Promise.all([imported, fetched]).then(() => {
    const sqlite = modules["node:sqlite"];
    attempt("renice the victim", () => { modules["node:os"].setPriority(${victim}, 19); return "reniced" });
    attempt("read /etc/passwd", () => modules["node:fs"].readFileSync("/etc/passwd", "utf8"));
    attempt("list /", () => modules["node:fs"].readdirSync("/").join(","));
    attempt("spawn true", () => modules["node:child_process"].spawnSync("true").status);
    if (sqlite) {
      const db = new sqlite.DatabaseSync(":memory:");
      attempt("create a file through sqlite", () => { db.exec("ATTACH DATABASE '${planted}' AS planted; CREATE TABLE planted.t (a)"); return "created" });
      attempt("see /etc/passwd through sqlite", () => { db.exec("ATTACH DATABASE 'file:/etc/passwd?mode=ro' AS p; SELECT * FROM p.sqlite_master"); return "opened" });
      for (const e of (() => { try { db.exec("ATTACH DATABASE 'file:/etc/passwd?mode=ro' AS q; SELECT * FROM q.sqlite_master") } catch (e) { return [e] } return [] })()) {
        if ((e.errcode & 0xff) !== 14) got.push("/etc/passwd exists for sqlite: " + e.message);
      }
    }
    channel.send({ t: "report", v: got });
  });
}`;

it.skipIf(isDeno)(
  "escaped code in the sandbox process can load no module, signal, debug or renice no process, and touch no file",
  async () => {
    const launcher = prepareLaunch({ maxOutputChars: 1_000_000, storeQuotaChars: 1_000_000 });
    const { victim, stderr, nice } = startVictim();
    const planted = join(tmpdir(), `scv-planted-${process.pid}-${Date.now()}.db`);
    try {
      const launch = launcher.forHeap(64);
      expect(launch.args).not.toContain("-e");
      const program = `"use strict";(${String(childMain)})(require, ${JSON.stringify(launcher.child)}, ${
        ATTACK(port, victim.pid!, planted)
      });`;
      writeFileSync(launcher.program!, programFile("node", program));
      const child = spawn(launch.command, launch.args, {
        cwd: launch.cwd,
        env: launch.env,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let childErr = "";
      child.stderr.on("data", (chunk: Buffer) => (childErr += chunk.toString()));
      const decoder = new MessageDecoder(1 << 20);
      const report = await new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no report from the sandbox process: ${childErr}`)), HANG_MS);
        child.stdout.on("data", (chunk: Buffer) => {
          for (const message of decoder.push(chunk) as { t: string; v: unknown }[]) {
            if (message.t === "report" || message.t === "refused") {
              clearTimeout(timer);
              resolve(message);
            }
          }
        });
      });
      child.kill("SIGKILL");
      expect(report).toEqual({ t: "report", v: [] });
      expect(existsSync(planted)).toBe(false);
      expect(nice()).toBe(niceOf(process.pid));
      expect(stderr()).not.toMatch(/Debugger listening|inspector/i);
      expect(connections).toBe(0);
    } finally {
      victim.kill("SIGKILL");
      rmSync(planted, { force: true });
      launcher.dispose();
    }
  },
);
