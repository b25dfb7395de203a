// The body of every sandbox process (see sandbox_process.ts for how it is started). Like
// `workerMain`, `childMain` is embedded as source text (`String(childMain)`), so it must stay
// self-contained: no imports, no references to anything outside its body.
//
// It talks to the host over its stdin and stdout only, in frames of a 4-byte little-endian length
// and JSON (the host's own frame format, lib/codec/frame.ts). Before it runs any cell it proves
// that the operating-system restrictions it was started with are on; otherwise it reports why and
// exits, and the host refuses to run cells.

export interface ChildConfig {
  /** The process must not reach the host's loopback (a fresh network namespace, or Deno's permissions). */
  expectNoNetwork: boolean;
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
  const writeAll = (bytes: Buffer): void => {
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += fs.writeSync(1, bytes, offset);
      } catch (error) {
        if ((error as { code?: string }).code !== "EAGAIN") proc.exit(0);
      }
    }
  };
  const send = (message: unknown): void => {
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

  // Layer checks: a restriction the host asked for but that is not on means this is no sandbox.
  if (!denied(() => fs.readFileSync("/etc/hostname"))) {
    refuse("the sandbox process can read files (/etc/hostname)");
    return;
  }
  if (!denied(() => childProcess.spawnSync("true"))) {
    refuse("the sandbox process can start processes (true)");
    return;
  }

  // Escaped code must not signal the host or any other process of the user (the permission model
  // does not cover signals): the process keeps no way to send one.
  const procRecord = proc as unknown as Record<string, unknown>;
  for (const name of ["kill", "_kill", "binding", "_linkedBinding", "dlopen", "chdir", "getBuiltinModule"]) {
    try {
      delete procRecord[name];
    } catch {
      // Not configurable here: the permission model is the boundary.
    }
  }
  const globals = globalThis as Record<string, unknown>;
  for (const name of ["require", "module", "exports", "__filename", "__dirname"]) {
    try {
      delete globals[name];
    } catch {
      // Not configurable.
    }
  }

  const start = (): void => {
    cellHost(requireFn, {
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
