// The body of every sandbox process (see sandbox_process.ts for how it is started). Like
// `workerMain`, `childMain` is embedded as source text (`String(childMain)`), so it must stay
// self-contained: no imports, no references to anything outside its body.
//
// It talks to the host over its stdin and stdout only, in frames of a 4-byte little-endian length
// and JSON (the host's own frame format, lib/codec/frame.ts); a long string travels in `part`
// messages ahead of its message, so that no frame exceeds what the host reads (channel.ts). Before
// it runs any cell it proves that the restrictions it was started with are on, and takes from its
// own realm everything that signals, changes priority or loads modules; otherwise it reports why
// and exits, and the host refuses to run cells. The cell host gets a `require` that knows only
// `node:vm`.

export interface ChildConfig {
  /** The process must not reach the host's loopback (a fresh network namespace, or Deno's permissions). */
  expectNoNetwork: boolean;
  /** No other process may be visible or signallable (its own PID namespace). */
  expectPidNamespace: boolean;
  /** An empty read-only root: checked through node:sqlite, which Node's permission model does not cover. */
  expectEmptyRoot: boolean;
  /** Files that exist on the host and must not be visible inside an empty root. */
  hostFiles: string[];
}

export interface ChildChannel {
  send(message: unknown): void;
  listen(handler: (message: unknown) => void): void;
}

type CellHost = (requireFn: (id: string) => unknown, channel: ChildChannel) => void;

export function childMain(requireFn: (id: string) => unknown, config: ChildConfig, cellHost: CellHost): void {
  "use strict";
  const proc = requireFn("node:process") as NodeJS.Process;
  const fs = requireFn("node:fs") as typeof import("node:fs");
  const childProcess = requireFn("node:child_process") as typeof import("node:child_process");
  const net = requireFn("node:net") as typeof import("node:net");
  const BufferCtor = (requireFn("node:buffer") as typeof import("node:buffer")).Buffer;
  const stdin = proc.stdin;

  // Written synchronously to fd 1: a stream write would defer its callback with process.nextTick,
  // and cell code would then run its promise jobs below Node's processTicksAndRejections frame.
  // A full pipe (the host reads slower, or stopped reading at its output budget) is waited on
  // asleep, not in a spin that takes a core from the host that should drain it.
  const atomicsWait = Atomics.wait;
  const asleep = new Int32Array(new SharedArrayBuffer(4));
  const writeAll = (bytes: Buffer): void => {
    let offset = 0;
    let waits = 0;
    while (offset < bytes.length) {
      try {
        offset += fs.writeSync(1, bytes, offset);
        waits = 0;
      } catch (error) {
        if ((error as { code?: string }).code !== "EAGAIN") proc.exit(0);
        atomicsWait(asleep, 0, 0, Math.min(2 ** waits++, 16) / 4);
      }
    }
  };
  const writeFrame = (message: unknown): void => {
    const json = JSON.stringify(message);
    const length = BufferCtor.byteLength(json, "utf8");
    if (length > 65536) {
      // A large message is not copied once more behind its prefix.
      const prefix = BufferCtor.allocUnsafe(4);
      prefix.writeUInt32LE(length, 0);
      writeAll(prefix);
      writeAll(BufferCtor.from(json, "utf8"));
      return;
    }
    const frame = BufferCtor.allocUnsafe(4 + length);
    frame.writeUInt32LE(length, 0);
    frame.write(json, 4, "utf8");
    writeAll(frame);
  };
  // Strings longer than this (UTF-16 units) travel in parts: at most 6 bytes a unit once encoded,
  // so a frame stays far below the host's cap (channel.ts MAX_CHANNEL_FRAME_BYTES).
  const PART_CHARS = 262144;
  const send = (message: unknown): void => {
    const record = message as Record<string, unknown>;
    const long: string[] = [];
    let total = 0;
    for (const field of ["v", "e", "w"]) {
      const value = record[field];
      if (typeof value === "string" && value.length > PART_CHARS) {
        long.push(field);
        total += value.length;
      }
    }
    if (long.length === 0) {
      writeFrame(message);
      return;
    }
    // The first part announces the length of them all: the host admits the message as a whole.
    let first = true;
    const rest: Record<string, unknown> = { ...record };
    for (const field of long) {
      const value = record[field] as string;
      for (let at = 0; at < value.length; at += PART_CHARS) {
        const part: Record<string, unknown> = { t: "part", f: field, v: value.slice(at, at + PART_CHARS) };
        if (first) part.n = total;
        first = false;
        writeFrame(part);
      }
      rest[field] = "";
    }
    writeFrame(rest);
  };

  let handler: ((message: unknown) => void) | null = null;
  const inbox: unknown[] = [];
  let flushing = false;
  // Messages are handled from an immediate, for the same reason as above.
  const flush = (): void => {
    flushing = false;
    if (handler === null) return;
    const messages = inbox.splice(0);
    for (const message of messages) handler(message);
  };
  let chunks: Buffer[] = [];
  let total = 0;
  // Bytes the frame being read needs (prefix included): a large frame is joined once.
  let needed = 4;
  stdin.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    total += chunk.length;
    if (total < needed) return;
    let data = chunks.length === 1 ? chunk : BufferCtor.concat(chunks, total);
    let offset = 0;
    needed = 4;
    while (data.length - offset >= 4) {
      const length = data.readUInt32LE(offset);
      if (data.length - offset - 4 < length) {
        needed = 4 + length;
        break;
      }
      const message = JSON.parse(data.toString("utf8", offset + 4, offset + 4 + length)) as { t?: unknown };
      offset += 4 + length;
      // A tool answer is the delegate round trip's hot path: handled at once, unless older messages wait.
      if (message.t === "tool" && handler !== null && inbox.length === 0) handler(message);
      else inbox.push(message);
    }
    data = data.subarray(offset);
    chunks = data.length === 0 ? [] : [data];
    total = data.length;
    if (!flushing && inbox.length > 0) {
      flushing = true;
      setImmediate(flush);
    }
  });
  // The host closed the channel (or died): nothing is left to do.
  stdin.on("end", () => proc.exit(0));
  stdin.on("error", () => proc.exit(0));

  const refuse = (reason: string): void => {
    send({ t: "refused", v: reason });
    proc.exitCode = 3;
    stdin.destroy();
  };

  const denied = (probe: () => unknown): boolean => {
    try {
      probe();
      return false;
    } catch {
      return true;
    }
  };

  // Members of `process` that signal processes, change their priority, load code or modules, or
  // change the process's identity or folder.
  const GONE = [
    "kill",
    "_kill",
    "_debugProcess",
    "_debugEnd",
    "_startProfilerIdleNotifier",
    "_stopProfilerIdleNotifier",
    "binding",
    "_linkedBinding",
    "dlopen",
    "execve",
    "getBuiltinModule",
    "mainModule",
    "loadEnvFile",
    "chdir",
    "umask",
    "setuid",
    "setgid",
    "seteuid",
    "setegid",
    "setgroups",
    "initgroups",
  ];

  // What an empty read-only root hides, seen through node:sqlite (its ATTACH opens files past the
  // permission model): a write must fail, and no host file may open. Null when all holds.
  const rootLeak = (): string | null => {
    if (typeof (globalThis as { Deno?: unknown }).Deno === "object") return null; // ATTACH is off in Deno.
    let db: { exec(sql: string): void; prepare(sql: string): { run(...values: unknown[]): unknown }; close(): void };
    try {
      const sqlite = requireFn("node:sqlite") as { DatabaseSync: new (path: string) => typeof db };
      db = new sqlite.DatabaseSync(":memory:");
    } catch {
      return null; // No node:sqlite in this runtime: nothing to open files with.
    }
    const opens = (uri: string, write: boolean): number => {
      try {
        db.prepare("ATTACH DATABASE ? AS probe").run(uri);
        db.exec(write ? "CREATE TABLE probe.t (a)" : "SELECT count(*) FROM probe.sqlite_master");
        return 0;
      } catch (error) {
        return Number((error as { errcode?: unknown }).errcode) & 0xff;
      } finally {
        try {
          db.exec("DETACH DATABASE probe");
        } catch {
          // Not attached.
        }
      }
    };
    const uri = (path: string): string => "file:" + path.replace(/[%?#]/g, (c) => "%" + c.charCodeAt(0).toString(16));
    try {
      for (const path of config.hostFiles) {
        // SQLITE_CANTOPEN (14): not there. Anything else means the file was found.
        if (opens(uri(path) + "?mode=ro", false) !== 14)
          return "the sandbox process can see the host's files (" + path + ")";
      }
      // Only once the host's root is known to be out of sight: this would create a file in it.
      if (opens(uri("/scv-write-probe") + "?mode=rwc", true) === 0) return "the sandbox process can write files (/)";
      return null;
    } finally {
      db.close();
    }
  };

  // Layer checks: a restriction the host asked for but that is not on means this is no sandbox.
  if (!denied(() => fs.readFileSync("/etc/hostname"))) {
    refuse("the sandbox process can read files (/etc/hostname)");
    return;
  }
  if (!denied(() => childProcess.spawnSync("true"))) {
    refuse("the sandbox process can start processes (true)");
    return;
  }
  // kill(-1, 0) succeeds when any other process can be signalled; in its own PID namespace there is
  // none (its init is exempt).
  if (config.expectPidNamespace && !denied(() => proc.kill(-1, 0))) {
    refuse("the sandbox process can see and signal other processes (no PID namespace)");
    return;
  }
  if (config.expectEmptyRoot) {
    const leak = rootLeak();
    if (leak !== null) {
      refuse(leak);
      return;
    }
  }

  // Escaped code must not signal the host or any other process (the permission model does not
  // cover signals; _debugProcess sends SIGUSR1, which opens the inspector of a Node process), nor
  // load a module (node:sqlite writes files past the permission model): the realm keeps none of
  // the functions that do, and no way to a `require`.
  const procRecord = proc as unknown as Record<string, unknown>;
  for (const name of [...GONE, "report"]) {
    try {
      delete procRecord[name];
    } catch {
      // Not configurable here (Deno's process.report); checked below where it matters.
    }
  }
  // The environment was empty but for what started the process (bwrap's PWD, the binary's NODE_OPTIONS).
  try {
    for (const key of Object.keys(proc.env)) delete proc.env[key];
  } catch {
    // Deno grants no access to it at all.
  }
  const globals = globalThis as Record<string, unknown>;
  for (const name of ["require", "module", "exports", "__filename", "__dirname"]) {
    try {
      delete globals[name];
    } catch {
      // Not configurable: checked below.
    }
  }
  const left = GONE.filter((name) => name in procRecord);
  if (left.length > 0) {
    refuse(`the sandbox process keeps process.${left.join(", process.")}`);
    return;
  }
  const routes = ["require", "module", "fs", "repl", "os", "child_process", "sqlite"].filter((name) => name in globals);
  if (!denied(() => Function("return 1"))) routes.push("code from strings (import())");
  if (routes.length > 0) {
    refuse(`the sandbox process's realm can load modules (${routes.join(", ")})`);
    return;
  }
  const onlyVm = (id: string): unknown => {
    if (id === "node:vm") return requireFn(id);
    throw new Error("not available in the sandbox: " + id);
  };

  const start = (): void => {
    cellHost(onlyVm, {
      send,
      listen(next) {
        handler = next;
        flush();
      },
    });
  };

  if (!config.expectNoNetwork) {
    start();
    return;
  }
  // In a fresh network namespace even loopback is down (ENETUNREACH); Deno refuses the connect
  // itself. A refused connection (ECONNREFUSED) means the host's loopback is reachable.
  let settled = false;
  let socket: import("node:net").Socket;
  const outcome = (reachable: boolean): void => {
    if (settled) return;
    settled = true;
    socket?.destroy();
    if (reachable) refuse("the sandbox process can open network connections (127.0.0.1)");
    else start();
  };
  try {
    socket = net.connect(9, "127.0.0.1");
    socket.on("connect", () => outcome(true));
    socket.on("error", (error: Error & { code?: string }) => outcome(error.code === "ECONNREFUSED"));
  } catch {
    outcome(false);
  }
}
