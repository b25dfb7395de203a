// Issue 26, item 6, as an attacker runs it against the real `scv host` over real pipes, from
// source, as the compiled binary and under Deno: a cell reaches its sandbox process's realm with
// the stack-limit trick (host_attacks.test.ts) and from there tries to open the host's inspector
// (process._debugProcess sends SIGUSR1 to any pid), signal or renice the host, and read or write
// files past the permission model through node:sqlite. On main the realm gave `process` and, through
// the `repl` global of `node -e`, any module: the host's inspector opened, its priority changed,
// files appeared in /tmp.
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";
import { niceOf } from "../support/live_processes.ts";
import { HANG_MS } from "../support/wait.ts";
import {
  execute,
  type Frame,
  hello,
  type HostProcess,
  killAllHosts,
  MAIN,
  open,
  ROOT,
  startFramedProcess,
  startHost,
} from "../support/frame_client.ts";

afterAll(killAllHosts);

const isDeno = "Deno" in globalThis;
const DENO = resolve(ROOT, "node_modules/.bin/deno");

/** Each way the runtime runs a callback on the cell's stack at the stack limit (host_attacks.test.ts). */
const TRIGGERS = [
  'pending.push(import("x"));',
  'void new Error("x").stack;',
  "const o = {}; Error.captureStackTrace(o); void o.stack;",
  'Error.prepareStackTrace = (e, sites) => sites.length; void new Error("x").stack; Error.prepareStackTrace = undefined;',
];

/** Cell code: reach the realm, then try everything against the host (`hostPid`). */
const ATTACK = (hostPid: number, planted: string) => `
const reached = new Set();
const pending = [];
const tryModule = (load, id) => { try { return load(id) || null } catch { return null } };
const attack = (F, p, modules) => {
  try { p._debugProcess(${hostPid}); reached.add("DEBUGGED THE HOST") } catch {}
  try { p.kill(${hostPid}, 0); reached.add("SIGNALLED THE HOST") } catch {}
  try { p.kill(-1, 0); reached.add("SIGNALLED SOME PROCESS") } catch {}
  const { os, fs, sqlite } = modules;
  try { os.setPriority(${hostPid}, 19); reached.add("RENICED THE HOST") } catch {}
  try { fs.readFileSync("/etc/passwd"); reached.add("READ /etc/passwd") } catch {}
  try { fs.writeFileSync(${JSON.stringify(planted + ".txt")}, "x"); reached.add("WROTE IN /tmp") } catch {}
  if (sqlite) {
    const db = new sqlite.DatabaseSync(":memory:");
    try { db.exec("ATTACH DATABASE '${planted}' AS w; CREATE TABLE w.t (a)"); reached.add("WROTE IN /tmp THROUGH SQLITE") } catch {}
    try { db.exec("ATTACH DATABASE 'file:/etc/passwd?mode=ro' AS r; SELECT * FROM r.sqlite_master") } catch (e) {
      if ((e.errcode & 0xff) !== 14) reached.add("SAW /etc/passwd THROUGH SQLITE");
    }
  }
};
const use = (e) => {
  try {
    const F = e && e.constructor && e.constructor.constructor;
    if (typeof F !== "function") return;
    const p = F("return typeof process === 'object' ? process : null")();
    if (!p) return;
    reached.add("process");
    const g = F("return globalThis")();
    const loaders = [
      (id) => p.getBuiltinModule(id),
      (id) => F("return require")()(id),
      (id) => p.mainModule.require(id),
      (id) => new g.repl.REPLServer({ input: new g.stream.PassThrough(), output: new g.stream.PassThrough(), terminal: false }).context.require(id),
    ];
    const load = (id) => { for (const loader of loaders) { const m = tryModule(loader, id); if (m) return m } return null };
    attack(F, p, { os: load("node:os"), fs: load("node:fs"), sqlite: load("node:sqlite") });
    pending.push(Promise.all(["node:os", "node:fs", "node:sqlite"].map((id) => F("return import('" + id + "')")().catch(() => null)))
      .then(([os, fs, sqlite]) => attack(F, p, { os, fs, sqlite })));
  } catch {}
};
${
  TRIGGERS.map((trigger, i) =>
    `function deep${i}(n) { try { deep${i}(n + 1) } catch {} try { ${trigger} } catch (e) { use(e) } }\ndeep${i}(0);`
  ).join("\n")
}
for (const p of pending) await p.catch(use);
await new Promise((r) => setTimeout(r, 100));
text([...reached].sort().join("; ") || "nothing");
`;

async function next(host: HostProcess, match: (frame: Frame) => boolean): Promise<Frame> {
  const frames = await host.frames.until(match);
  return frames.at(-1);
}

async function attackHost(host: HostProcess, name: string): Promise<void> {
  const planted = join(tmpdir(), `scv-escape-${process.pid}-${name}.db`);
  try {
    host.send(hello());
    expect((await next(host, () => true)).type).toBe("connection/ready");
    host.send(open(1, "s1"));
    await next(host, (f) => f.id === 1);
    host.send(execute(2, "s1", ATTACK(host.child.pid!, planted), { yieldTimeMs: 10 * HANG_MS }));
    const initial = await next(host, (f) => f.id === 2 && f.type === "execute/initialResponse");
    const report = initial.result.value.Result.content_items[0].text as string;
    // Reaching the realm is tolerated (the process is the boundary); nothing may be done from it.
    expect(report).toMatch(/^(nothing|process)$/);
    expect(host.stderr()).not.toMatch(/Debugger listening|inspector/i);
    expect(niceOf(host.child.pid!)).toBe(niceOf(process.pid));
    expect(existsSync(planted)).toBe(false);
    expect(existsSync(`${planted}.txt`)).toBe(false);
    // The host serves on.
    host.send(execute(3, "s1", "text(6 * 7)"));
    const after = await next(host, (f) => f.id === 3 && f.type === "execute/initialResponse");
    expect(after.result.value.Result.content_items).toEqual([{ type: "input_text", text: "42" }]);
    host.closeStdin();
    expect((await host.exit).code).toBe(0);
  } finally {
    rmSync(planted, { force: true });
    rmSync(`${planted}.txt`, { force: true });
  }
}

describe.concurrent("escaped code cannot debug, signal or renice the host, nor touch files (issue 26, item 6)", () => {
  test.skipIf(isDeno)("from source", async () => {
    await attackHost(startHost(), "source");
  });

  test.skipIf(isDeno || UNDER_DENO)("as the compiled binary", async () => {
    await attackHost(startFramedProcess(await freshBinary(), ["host"]), "binary");
  });

  test.skipIf(isDeno || UNDER_DENO)("under Deno", async () => {
    await attackHost(startFramedProcess(DENO, ["run", "-A", MAIN, "host"]), "deno");
  });
});
