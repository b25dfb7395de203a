// The cell host inside every sandbox process (child_main.ts starts it once its restrictions are
// proven). `workerMain` is embedded as source text (`String(workerMain)`), so it must stay
// self-contained: no imports, no references to anything outside its body.
//
// One cell at a time runs in a sandbox process, each in a fresh vm context built by `cellRuntime`
// (passed in as source text). Cell code only ever receives objects of its own realm. Nothing here
// is trusted by the host: it re-checks every message (checks.ts).

/** host → sandbox process */
export type ToWorker =
  | {
    t: "start";
    cell: number;
    source: string;
    firstImport: string | null;
    tools: string;
    store: string;
    storeSize: number;
  }
  | { t: "tool"; cell: number; call: number; ok: boolean; v: string | undefined };

/** sandbox process → host */
export type FromWorker =
  | { t: "idle" }
  | { t: "refused"; v: string }
  | { t: "started"; cell: number }
  | { t: "text"; cell: number; v: string }
  | { t: "image"; cell: number; v: string; d: string }
  | { t: "audio"; cell: number; v: string }
  | { t: "notify"; cell: number; v: string }
  | { t: "yield"; cell: number }
  | { t: "tool"; cell: number; call: number; i: number; v: string }
  | { t: "done"; cell: number; e: string | null; w: string };

/** The cell's source (already stripped of module syntax) runs as the body of an async function. */
export const CELL_PREFIX = '(async function () {"use strict";\n';
export const CELL_SUFFIX = "\n})";

export interface WorkerConfig {
  runtimeSource: string;
  /** A cell whose text output exceeds this many UTF-16 units fails. */
  maxOutputChars: number;
  /** The session store's quota in UTF-16 units (keys plus JSON values). */
  storeQuotaChars: number;
  maxErrorChars: number;
  cellPrefix: string;
  cellSuffix: string;
}

export function workerMain(
  config: WorkerConfig,
  requireFn: (id: string) => unknown,
  channel: { send(message: FromWorker): void; listen(handler: (message: ToWorker) => void): void },
): void {
  "use strict";
  type Api = import("./runtime.ts").RuntimeApi;
  type Env = { context: object; api: Api; rec: Rec | null };
  type Rec = {
    id: number;
    env: Env;
    done: boolean;
    timers: Map<number, ReturnType<typeof setTimeout>>;
    /** Tool calls made, and those still unanswered. */
    calls: number;
    pending: number;
    /** Output charged so far (see MESSAGE_COST). */
    out: number;
  };
  const vm = requireFn("node:vm") as typeof import("node:vm");
  const post = (message: FromWorker): void => channel.send(message);
  const MAX_DELAY = 2147483647;
  // Every message to the main thread is charged this many characters of output, so that a loop
  // of tiny text(), notify() or yield_control() calls cannot flood the host either.
  const MESSAGE_COST = 256;
  // Beyond this many unanswered tool calls (the largest delegate cap a host grants) a call
  // rejects here, without a message.
  const MAX_PENDING_CALLS = 4096;

  // Rejections the cell leaves unhandled are discarded (host spec §7.1).
  process.on("unhandledRejection", () => {});

  // Node formats a cell's stacks with this realm's Error.prepareStackTrace when the cell sets none.
  // It is the default format minus Node's own frames: promise jobs of a cell may run below the
  // event loop's JS frames (runNextTicks, processTimers), which are no part of the cell's story.
  const errorToString = Error.prototype.toString;
  Error.prepareStackTrace = (error: unknown, sites: { getFileName(): unknown; toString(): string }[]): string => {
    let head: string;
    try {
      head = errorToString.call(error);
    } catch {
      head = "Error";
    }
    let text = head;
    for (const site of sites) {
      const file = site.getFileName();
      if (typeof file === "string" && file.startsWith("node:")) continue;
      text += "\n    at " + site.toString();
    }
    return text;
  };

  const runtimeScript = new vm.Script("(" + config.runtimeSource + ")", { filename: "scv-runtime.js" });
  const rejectImport = (): never => {
    throw "unsupported import in exec";
  };

  let current: Rec | null = null;
  // Every cell's text is made unique. With --experimental-vm-modules, compiling a source V8 has
  // compiled before (an agent repeating a cell) costs time linear in how often it was: 420 µs after
  // 5,000 repeats, against a flat 7 µs for distinct sources (scripts/bench/host.ts repeats one cell).
  let compiled = 0;
  let prepared: Env | null = null;
  let importIsolated = false;

  const prepare = (): Env => {
    const context = vm.createContext(vm.constants.DONT_CONTEXTIFY, { importModuleDynamically: rejectImport as never });
    const env = { context, rec: null } as unknown as Env;
    const host = (op: string, a?: unknown, b?: unknown): number | undefined => hostCall(env, op, a, b);
    env.api = (runtimeScript.runInContext(context) as (h: typeof host) => Api)(host);
    return env;
  };

  const finish = (rec: Rec, errorText: string | null): void => {
    if (rec.done) return;
    rec.done = true;
    for (const timer of rec.timers.values()) clearTimeout(timer);
    rec.timers.clear();
    let writes = "{}";
    try {
      const w = rec.env.api.storeWrites();
      if (typeof w === "string") writes = w;
    } catch {
      // A cell that broke its own realm commits nothing.
    }
    // A huge thrown string must not become a huge frame: the host cuts it again and charges it.
    if (errorText !== null && errorText.length > config.maxErrorChars)
      errorText = errorText.slice(0, config.maxErrorChars);
    post({ t: "done", cell: rec.id, e: errorText, w: writes });
    if (current === rec) current = null;
    // Only reached once the cell's microtasks drained: a worker stuck in cell code never
    // reports idle and is replaced by the pool.
    setImmediate(() => {
      post({ t: "idle" });
      if (prepared === null) prepared = prepare();
    });
  };

  const fire = (rec: Rec, id: number): void => {
    rec.timers.delete(id);
    if (rec.done) return;
    try {
      rec.env.api.fireTimer(id);
    } catch {
      finish(rec, "exec cell timer failed");
    }
  };

  const hostCall = (env: Env, op: string, a: unknown, b: unknown): number | undefined => {
    const rec = env.rec;
    if (rec === null || rec.done) return op === "tool" || op === "yield" ? undefined : 1;
    const cell = rec.id;
    switch (op) {
      case "text":
      case "notify":
      case "image":
      case "audio":
      case "yield":
        if (op !== "yield" && (typeof a !== "string" || (op === "image" && typeof b !== "string"))) return undefined;
        // Output waits in the main thread until delivered: its total per cell is bounded.
        rec.out += MESSAGE_COST + (typeof a === "string" ? a.length : 0);
        if (rec.out > config.maxOutputChars) {
          finish(rec, "exec cell output exceeded " + config.maxOutputChars + " characters");
          return 1;
        }
        if (op === "image") post({ t: "image", cell, v: a as string, d: b as string });
        else if (op === "yield") post({ t: "yield", cell });
        else post({ t: op as "text" | "notify" | "audio", cell, v: a as string });
        return undefined;
      case "tool": {
        if (typeof a !== "number" || typeof b !== "string") return undefined;
        if (rec.pending >= MAX_PENDING_CALLS) return -1;
        rec.pending++;
        const call = ++rec.calls;
        // The main thread may be polling for this call (after answering the previous one).
        post({ t: "tool", cell, call, i: a, v: b });
        return call;
      }
      case "setTimer":
        if (typeof a === "number" && typeof b === "number") {
          rec.timers.set(a, setTimeout(() => fire(rec, a), b > MAX_DELAY ? MAX_DELAY : b));
        }
        return undefined;
      case "clearTimer":
        if (typeof a === "number") {
          clearTimeout(rec.timers.get(a));
          rec.timers.delete(a);
        }
        return undefined;
      case "exit":
      case "done":
        finish(rec, null);
        return 1;
      case "fail":
        finish(rec, typeof a === "string" ? a : "exec cell failed");
        return 1;
      default:
        return undefined;
    }
  };

  const syntaxText = (error: unknown): string => {
    try {
      const e = error as { name?: unknown; message?: unknown };
      const name = typeof e.name === "string" ? e.name : "SyntaxError";
      return name + ": " + (typeof e.message === "string" ? e.message : String(error));
    } catch {
      return "SyntaxError: invalid source";
    }
  };

  const start = (message: Extract<ToWorker, { t: "start" }>): void => {
    const env = prepared ?? prepare();
    prepared = null;
    const rec: Rec = { id: message.cell, env, done: false, timers: new Map(), calls: 0, pending: 0, out: 0 };
    env.rec = rec;
    current = rec;
    post({ t: "started", cell: message.cell });
    try {
      env.api.setup(message.tools, message.store, message.storeSize, config.storeQuotaChars);
    } catch {
      finish(rec, "exec cell runtime setup failed");
      return;
    }
    if (!importIsolated) {
      finish(rec, "exec sandbox unavailable: this runtime cannot isolate import() in cells");
      return;
    }
    let script: import("node:vm").Script;
    try {
      script = new vm.Script(config.cellPrefix + message.source + config.cellSuffix + "\n//" + ++compiled, {
        filename: "exec_main.mjs",
        lineOffset: -1,
        importModuleDynamically: rejectImport as never,
      });
    } catch (error) {
      finish(rec, syntaxText(error));
      return;
    }
    if (message.firstImport !== null) {
      finish(rec, "Unsupported import in exec: " + message.firstImport);
      return;
    }
    try {
      env.api.run(script.runInContext(env.context));
    } catch {
      finish(rec, "exec cell runtime failed to start");
    }
  };

  const handle = (message: ToWorker): void => {
    if (message.t === "start") {
      start(message);
    } else if (message.t === "tool") {
      const rec = current;
      if (rec === null || rec.id !== message.cell || rec.done) return;
      rec.pending--;
      try {
        rec.env.api.deliverTool(message.call, message.ok, message.v);
      } catch {
        // A cell that broke its own realm simply never sees the answer.
      }
    }
  };

  // Self-test before the first cell: `import()` must reject with our plain string. On a runtime
  // that ignores the dynamic-import callback it would hand the cell an error of this realm.
  let queued: ToWorker[] | null = [];
  channel.listen((message: ToWorker) => {
    if (queued !== null) queued.push(message);
    else handle(message);
  });
  const probe = vm.createContext(vm.constants.DONT_CONTEXTIFY, { importModuleDynamically: rejectImport as never });
  const probed = new vm.Script("import('x').then(() => 'resolved', (e) => (typeof e === 'string' ? e : 'object'))", {
    importModuleDynamically: rejectImport as never,
  }).runInContext(probe) as Promise<unknown>;
  void probed.then((outcome) => {
    importIsolated = outcome === "unsupported import in exec";
    const pending = queued ?? [];
    queued = null;
    for (const message of pending) handle(message);
    post({ t: "idle" });
    if (prepared === null) prepared = prepare();
  });
}
