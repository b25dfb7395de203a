// Code that has escaped its cell, running in the sandbox process's own realm: the process is
// started exactly as the host starts it (same command, flags, environment, working folder and
// namespaces), but its cell host is replaced by attacker code that also holds the process's own
// `require`. Everything it tries must fail. No test hook ships in the product: the test builds
// the attacker's program itself from the same start code (childMain).
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MessageDecoder } from "../../lib/sandbox/channel.ts";
import { childMain } from "../../lib/sandbox/child_main.ts";
import { prepareLaunch } from "../../lib/sandbox/launch.ts";
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

/** Runs in the sandbox process after its self-test; reports every attempt that did not fail. */
const ATTACK = (port: number) =>
  `(r, channel) => {
  const got = [];
  const attempt = (name, fn) => { try { const v = fn(); got.push(name + ": " + String(v).slice(0, 80)) } catch {} };
  const fs = r("node:fs");
  attempt("read /etc/hostname", () => fs.readFileSync("/etc/hostname", "utf8"));
  attempt("list /", () => fs.readdirSync("/").length);
  attempt("write a file", () => { fs.writeFileSync("planted.txt", "x"); return "written" });
  attempt("open the host's stdout", () => fs.openSync("/proc/" + process.ppid + "/fd/1", "w"));
  attempt("spawn true", () => r("node:child_process").spawnSync("true").status);
  attempt("exec true", () => r("node:child_process").execSync("true"));
  attempt("start a worker", () => new (r("node:worker_threads").Worker)("1", { eval: true }));
  attempt("open the inspector", () => { r("node:inspector").open(0); return "open" });
  attempt("signal the host", () => process.kill(process.ppid, 0));
  attempt("load an addon", () => process.dlopen({ exports: {} }, "/nonexistent.node"));
  attempt("reach a binding", () => process.binding("fs"));
  const env = Object.keys(process.env);
  if (env.length > 0) got.push("environment: " + env.join(","));
  // Reports once the connection attempt has an outcome, whichever it is.
  const socket = r("node:net").connect(${port}, "127.0.0.1");
  const report = (connected) => {
    if (connected) got.push("connected to the host's loopback");
    socket.destroy();
    channel.send({ t: "report", v: got });
  };
  socket.once("connect", () => report(true));
  socket.once("error", () => report(false));
}`;

it.skipIf(isDeno)(
  "escaped code in the sandbox process cannot read, write, spawn, connect, signal or reach the host's stdout",
  async () => {
    const launcher = prepareLaunch({ maxOutputChars: 1_000_000, storeQuotaChars: 1_000_000 });
    try {
      const launch = launcher.forHeap(64);
      const netns = launch.command.endsWith("unshare");
      expect(launch.args.at(-2)).toBe("-e");
      const program = `"use strict";(${String(childMain)})(require, ${JSON.stringify({ expectNoNetwork: netns })}, ${
        ATTACK(port)
      });`;
      const args = [...launch.args.slice(0, -1), program];
      const child = spawn(launch.command, args, { cwd: launch.cwd, env: launch.env, stdio: ["pipe", "pipe", "pipe"] });
      const decoder = new MessageDecoder(1 << 20);
      const report = await new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no report from the sandbox process")), HANG_MS);
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
      // Without a network namespace (an OS that forbids it) the loopback stays reachable: the docs say so.
      if (netns) expect(connections).toBe(0);
    } finally {
      launcher.dispose();
    }
  },
);
