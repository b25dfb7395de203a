// Small host modules in process: the bounded outbox, catalog revisions, --listen parsing, limits.
import { describe, expect, test } from "vitest";
import { type CachedCatalog, jsonEqual, resolveCatalog } from "../../lib/host/catalog.ts";
import { limitsFromEnv, Permits } from "../../lib/host/limits.ts";
import { Outbox, OUTGOING_QUEUE_FULL } from "../../lib/host/outbox.ts";
import type { WireToolDefinition } from "../../lib/host/protocol.ts";
import { parseListen } from "../../lib/cli/host.ts";
import { settle } from "../support/wait.ts";

const frame = (n: number) => Buffer.alloc(n);

describe("Outbox", () => {
  test("writes frames in order, one at a time", async () => {
    const written: number[] = [];
    let inFlight = 0;
    const outbox = new Outbox(
      {
        write: async (f) => {
          inFlight++;
          expect(inFlight).toBe(1);
          await settle(); // a write that takes a few turns of the event loop
          written.push(f.length);
          inFlight--;
        },
      },
      { maxFrames: 10, maxBytes: 1_000 },
      () => expect.fail("no overflow expected"),
    );
    for (let i = 1; i <= 5; i++) outbox.push(frame(i));
    await outbox.flushed();
    expect(written).toEqual([1, 2, 3, 4, 5]);
  });

  test("a reader that never drains overflows the queue: fatal once, then nothing is written", async () => {
    const fatal: string[] = [];
    let writes = 0;
    const outbox = new Outbox(
      {
        write: () => {
          writes++;
          return new Promise<void>(() => {});
        },
      },
      { maxFrames: 3, maxBytes: 1_000_000 },
      (message) => fatal.push(message),
    );
    for (let i = 0; i < 10; i++) outbox.push(frame(1));
    expect(fatal).toEqual([OUTGOING_QUEUE_FULL]);
    expect(outbox.stopped).toBe(true);
    expect(writes).toBe(1);
    await outbox.flushed();
  });

  test("the byte bound counts too, but one oversized frame alone is accepted", () => {
    const fatal: string[] = [];
    const outbox = new Outbox(
      { write: () => new Promise<void>(() => {}) },
      { maxFrames: 100, maxBytes: 10 },
      (m) => fatal.push(m),
    );
    outbox.push(frame(50)); // taken by the writer at once
    outbox.push(frame(50)); // alone in the queue
    expect(fatal).toEqual([]);
    outbox.push(frame(1));
    expect(fatal).toEqual([OUTGOING_QUEUE_FULL]);
  });

  test("a sealed outbox drops new frames but still writes what was queued", async () => {
    const written: number[] = [];
    const outbox = new Outbox(
      { write: async (f) => void written.push(f.length) },
      { maxFrames: 10, maxBytes: 100 },
      () => undefined,
    );
    outbox.push(frame(1));
    outbox.push(frame(2));
    outbox.seal();
    outbox.push(frame(3));
    await outbox.flushed();
    expect(written).toEqual([1, 2]);
  });

  test("a failing transport is fatal", async () => {
    const fatal: string[] = [];
    const outbox = new Outbox(
      {
        write: async () => {
          throw new Error("EPIPE");
        },
      },
      { maxFrames: 10, maxBytes: 100 },
      (m) => fatal.push(m),
    );
    outbox.push(frame(1));
    await outbox.flushed();
    expect(fatal).toEqual(["failed to write code-mode host frame: EPIPE"]);
  });
});

describe("catalog revisions", () => {
  const tool = (name: string, description = ""): WireToolDefinition => ({
    name,
    tool_name: { name, namespace: null },
    description,
    kind: "function",
    input_schema: { type: "object", properties: { a: { type: "string" } } },
    output_schema: null,
  });

  test("the §6.6 table", () => {
    const holder: { catalog: CachedCatalog | null } = { catalog: null };
    expect(resolveCatalog(holder, null, [tool("a")])).toEqual({ ok: true, tools: [tool("a")] });
    expect(holder.catalog).toBeNull();
    expect(resolveCatalog(holder, 0, [tool("a")])).toEqual({
      ok: false,
      message: "invalid code-mode catalog revision",
    });
    expect(resolveCatalog(holder, 1, [])).toEqual({ ok: false, message: "unknown code-mode catalog revision" });
    expect(resolveCatalog(holder, 2, [tool("a")]).ok).toBe(true);
    expect(resolveCatalog(holder, 2, [])).toEqual({ ok: true, tools: [tool("a")] });
    expect(resolveCatalog(holder, 2, [tool("a", "x")])).toEqual({
      ok: false,
      message: "conflicting code-mode catalog revision",
    });
    expect(resolveCatalog(holder, 1, [tool("b")])).toEqual({ ok: true, tools: [tool("b")] });
    expect(holder.catalog?.revision).toBe(2);
    expect(resolveCatalog(holder, 3, [tool("c")]).ok).toBe(true);
    expect(resolveCatalog(holder, 2, [])).toEqual({ ok: false, message: "unknown code-mode catalog revision" });
  });

  test("equality ignores key order but not values", () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({}, [])).toBe(false);
  });
});

describe("--listen", () => {
  test("accepted forms", () => {
    expect(parseListen(undefined)).toEqual({ kind: "stdio" });
    expect(parseListen("stdio")).toEqual({ kind: "stdio" });
    expect(parseListen("stdio://")).toEqual({ kind: "stdio" });
    expect(parseListen("ws://127.0.0.1:0")).toEqual({ kind: "ws", host: "127.0.0.1", port: 0 });
    expect(parseListen("ws://[::1]:9000")).toEqual({ kind: "ws", host: "::1", port: 9000 });
  });

  test("rejected forms and their exact errors", () => {
    expect(() => parseListen("grpc://127.0.0.1:1")).toThrow(
      "unsupported --listen URL `grpc://127.0.0.1:1`; expected `ws://IP:PORT`, `stdio`, or `stdio://`",
    );
    for (
      const url of ["ws://localhost:1", "ws://127.0.0.1", "ws://::1:9000", "ws://127.0.0.1:70000", "ws://[127.0.0.1]:1"]
    ) {
      expect(() => parseListen(url)).toThrow(`invalid websocket --listen URL \`${url}\`; expected \`ws://IP:PORT\``);
    }
  });
});

describe("limits", () => {
  test("permits fail fast when exhausted and release once", () => {
    const permits = new Permits(1);
    const release = permits.tryAcquire();
    expect(release).not.toBeNull();
    expect(permits.tryAcquire()).toBeNull();
    release!();
    release!();
    expect(permits.used).toBe(0);
  });

  test("environment overrides", () => {
    const limits = limitsFromEnv({ SCV_HOST_MAX_IN_FLIGHT_REQUESTS: "0", SCV_HOST_MAX_ACTIVE_CELLS: "3" });
    expect([limits.inFlight.max, limits.activeCells.max, limits.maxPendingDelegates, limits.maxLargePendingDelegates])
      .toEqual([0, 3, 1024, 4096]);
    expect(limitsFromEnv({}).inFlight.max).toBe(256);
    expect(limitsFromEnv({}).activeCells.max).toBe(128);
    expect(() => limitsFromEnv({ SCV_HOST_MAX_ACTIVE_CELLS: "x" })).toThrow("invalid SCV_HOST_MAX_ACTIVE_CELLS `x`");
    expect(() => limitsFromEnv({ SCV_HOST_CAPABILITIES: "nope" })).toThrow("unsupported capability `nope`");
  });
});
