// Spec §11 items 7–10 and 14, plus the CLI rules of §1: seq numbering, framing errors, order errors,
// unsupported messages, version mismatch, `--stdio` required.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommand, cliEnv, ROOT } from "../support/cli_command.ts";
import { textResponse } from "../support/fake_provider.ts";
import { spawnServer } from "../support/server_client.ts";
import { useServerHarness } from "../support/server_harness.ts";
import { waitFor } from "../support/wait.ts";

const harness = useServerHarness();

const env = () => cliEnv(harness.env());
const scv = (...args: string[]) => cliCommand(args, "main.ts");
const init = (requestId = "init", version = 3) => ({
  type: "initialize",
  request_id: requestId,
  protocol_version: version,
  client: { name: "test", version: "0" },
});

describe("server CLI", () => {
  it("requires --stdio (exit 2 with the spec message)", () => {
    const { command, args } = scv("server");
    const result = spawnSync(command, args, { cwd: ROOT, env: env(), encoding: "utf8", input: "" });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("scv server currently supports only --stdio\n");
    expect(result.stdout).toBe("");
  });

  it("exits 2 on a bad flag", () => {
    const { command, args } = scv("server", "--stdio", "--approval-policy", "sometimes");
    const result = spawnSync(command, args, {
      cwd: ROOT,
      env: env(),
      encoding: "utf8",
      input: "",
    });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
  });

  // How soon after EOF (the spec's 1 s) is measured by scripts/bench/latency.ts (server.eof_to_exit).
  it("exits 0 on EOF when idle, writing nothing", async () => {
    const client = spawnServer({ env: { ...env(), SCV_LOG: "debug" } });
    client.closeStdin();
    await waitFor(() => client.stderr.includes("connection ending: eof"), { what: "the server to see EOF" });
    expect(await client.exit()).toEqual({ code: 0, signal: null });
    expect(client.lines).toEqual([]);
  });

  it("writes logs to stderr only, at SCV_LOG", async () => {
    const client = spawnServer({ env: { ...env(), SCV_LOG: "debug" } });
    await client.initialize();
    client.sendRaw("{}\n");
    await client.next("error");
    await client.finish();
    expect(client.stderr).toContain("connection ending: eof");
    expect(client.events.map((event) => event.type)).toEqual(["initialized", "error"]);
  });
});

describe("broken stdout (§6.7)", () => {
  it("exits 1 when stdout is gone", async () => {
    const client = spawnServer({ env: env() });
    await client.initialize();
    client.child.stdout!.destroy();
    for (let index = 0; index < 20; index += 1)
      client.send({ type: "daemon.control", request_id: `d${index}`, command: {} });
    const { code } = await client.exit(3000);
    expect(code).toBe(1);
  });
});

describe("handshake", () => {
  it("rejects a protocol version mismatch fatally and exits non-zero", async () => {
    const client = spawnServer({ env: env() });
    client.send(init("1", 2));
    client.send(init("2", 3));
    const error = await client.next();
    expect(error).toEqual({
      type: "error",
      request_id: "1",
      code: "version_mismatch",
      message: "server supports protocol 3",
      fatal: true,
    });
    const { code } = await client.exit();
    expect(code).not.toBe(0);
    // It stopped reading: the second initialize was never answered.
    expect(client.events).toHaveLength(1);
  });

  it("answers every message before initialize with not_initialized, then still accepts initialize", async () => {
    const client = spawnServer({ env: env() });
    const before = [
      { type: "session.start", request_id: "a", cwd: harness.sandbox.workspace },
      { type: "session.attach", request_id: "b", session_id: "S", cwd: harness.sandbox.workspace },
      { type: "daemon.control", request_id: "c", command: { action: "status" } },
      { type: "turn.start", request_id: "d", session_id: "S", prompt: "hi" },
    ];
    for (const message of before) client.send(message);
    for (const message of before) {
      expect(await client.next()).toEqual({
        type: "error",
        request_id: message.request_id,
        code: "not_initialized",
        message: "initialize must be the first message",
        fatal: false,
      });
    }
    await client.initialize();
    client.send(init("again"));
    expect(await client.next()).toEqual({
      type: "error",
      request_id: "again",
      code: "invalid_request",
      message: "connection is already initialized",
      fatal: false,
    });
    await client.finish();
  });
});

describe("framing (§2)", () => {
  it("answers each framing error and keeps serving the next line", async () => {
    const client = spawnServer({ env: env() });
    await client.initialize();
    const cases: Array<[string, string, string]> = [
      ["\n", "invalid_json", "protocol frame is empty"],
      ["\r\n", "invalid_json", "protocol frame is empty"],
      ["not json\n", "invalid_json", "invalid protocol JSON: "],
      ["[1,2]\n", "invalid_json", "invalid protocol JSON: "],
      ['{"request_id":"x"}\n', "invalid_json", "invalid protocol JSON: "],
      ['{"type":"bogus","request_id":"x"}\n', "invalid_json", "invalid protocol JSON: "],
      ['{"type":"session.start","request_id":"x"}\n', "invalid_json", "invalid protocol JSON: "],
      [
        '{"type":"session.pause","request_id":"x","session_id":"S","paused":"yes"}\n',
        "invalid_json",
        "invalid protocol JSON: ",
      ],
      ['{"type":"session.clear","session_id":"S"}\n', "invalid_json", "invalid protocol JSON: "],
      [Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]).toString("latin1"), "invalid_json", "invalid protocol JSON: "],
      [
        `{"type":"initialize","pad":"${"x".repeat(1_048_600)}"}\n`,
        "invalid_request",
        "client frame exceeds configured limit",
      ],
    ];
    for (const [line, code, message] of cases) {
      if (line.includes("\xff")) client.child.stdin!.write(Buffer.from(line, "latin1"));
      else client.sendRaw(line);
      // A valid message right after proves the connection continues.
      client.send({ type: "daemon.control", request_id: "probe", command: {} });
      const error = await client.next();
      expect(error.type, line.slice(0, 60)).toBe("error");
      expect(error.code, line.slice(0, 60)).toBe(code);
      expect(error.message.startsWith(message), error.message).toBe(true);
      expect(error).not.toHaveProperty("request_id");
      expect(error.fatal).toBe(false);
      const probe = await client.next();
      expect(probe).toMatchObject({ type: "error", request_id: "probe", code: "unsupported" });
    }
    await client.finish();
  });

  it("ignores unknown extra fields and processes an unterminated last line", async () => {
    const client = spawnServer({ env: env() });
    client.sendRaw(JSON.stringify({ ...init("1"), extra: { anything: true }, channel: "x" }) + "\n");
    expect((await client.next()).type).toBe("initialized");
    client.sendRaw(JSON.stringify({ type: "daemon.control", request_id: "last", command: {} }));
    client.closeStdin();
    expect(await client.next()).toMatchObject({ type: "error", request_id: "last", code: "unsupported" });
    expect((await client.exit()).code).toBe(0);
  });
});

describe("order errors and unsupported messages (§5.1)", () => {
  it("gives the exact unsupported messages", async () => {
    const client = spawnServer({ env: env() });
    await client.initialize();
    client.send({ type: "session.attach", request_id: "a", session_id: "S", cwd: harness.sandbox.workspace });
    client.send({ type: "daemon.control", request_id: "d", command: { action: "status" } });
    expect(await client.next()).toEqual({
      type: "error",
      request_id: "a",
      code: "unsupported",
      message: "session attach requires the shared socket server",
      fatal: false,
    });
    expect(await client.next()).toEqual({
      type: "error",
      request_id: "d",
      code: "unsupported",
      message: "Component management requires the daemon socket",
      fatal: false,
    });
    await client.finish();
  });

  it("rejects session messages without a session, with a foreign id, and a second session.start", async () => {
    const client = spawnServer({ env: env() });
    await client.initialize();
    const sessionMessages = (sessionId: string) => [
      { type: "turn.start", request_id: "t", session_id: sessionId, prompt: "hi" },
      { type: "queue.update", request_id: "u", session_id: sessionId, queue_id: "Q", revision: 1, prompt: "x" },
      { type: "queue.move", request_id: "m", session_id: sessionId, queue_id: "Q", revision: 1, before_queue_id: null },
      { type: "queue.remove", request_id: "r", session_id: sessionId, queue_id: "Q", revision: 1 },
      { type: "session.pause", request_id: "p", session_id: sessionId, paused: true },
      { type: "turn.cancel", request_id: "c", session_id: sessionId, turn_id: "T" },
      { type: "approval.resolve", request_id: "a", session_id: sessionId, approval_id: "A", approved: true },
      { type: "session.clear", request_id: "l", session_id: sessionId },
    ];
    for (const message of sessionMessages("S")) {
      client.send(message);
      expect(await client.next()).toEqual({
        type: "error",
        request_id: message.request_id,
        code: "session_not_found",
        message: "start a session first",
        fatal: false,
      });
    }
    client.send({ type: "session.start", request_id: "bad", cwd: path.join(harness.sandbox.workspace, "missing") });
    const failed = await client.next();
    expect(failed).toMatchObject({ type: "error", request_id: "bad", code: "invalid_request", fatal: false });
    expect(failed.message.startsWith(`resolve cwd ${path.join(harness.sandbox.workspace, "missing")}`)).toBe(true);
    client.send({ type: "session.start", request_id: "file", cwd: path.join(ROOT, "package.json") });
    expect(await client.next()).toMatchObject({
      request_id: "file",
      code: "invalid_request",
      message: "cwd is not a directory",
    });

    client.send({ type: "session.start", request_id: "s1", cwd: harness.sandbox.workspace });
    const started = await client.next("session.started");
    await client.next("queue.snapshot");
    for (const message of sessionMessages("not-this-session")) {
      client.send(message);
      expect(await client.next()).toEqual({
        type: "error",
        request_id: message.request_id,
        code: "session_not_found",
        message: "session id does not match",
        fatal: false,
      });
    }
    client.send({ type: "session.start", request_id: "s2", cwd: harness.sandbox.workspace });
    expect(await client.next()).toEqual({
      type: "error",
      request_id: "s2",
      code: "invalid_request",
      message: "this connection already has a session",
      fatal: false,
    });
    for (const prompt of ["", "   \n\t", "x".repeat(262_145)]) {
      client.send({ type: "turn.start", request_id: "empty", session_id: started.session_id, prompt });
      expect(await client.next()).toEqual({
        type: "error",
        request_id: "empty",
        code: "invalid_request",
        message: "prompt must be non-empty and no larger than 256 KiB",
        fatal: false,
      });
    }
    client.send({ type: "turn.cancel", request_id: "tc", session_id: started.session_id, turn_id: "T" });
    expect(await client.next()).toMatchObject({
      request_id: "tc",
      code: "turn_not_found",
      message: "active turn was not found",
    });
    client.send({
      type: "approval.resolve",
      request_id: "ar",
      session_id: started.session_id,
      approval_id: "A",
      approved: true,
    });
    expect(await client.next()).toMatchObject({
      request_id: "ar",
      code: "approval_not_found",
      message: "approval was not found or already resolved",
    });
    await client.finish();
  });

  it("resolves a relative cwd against the server's working directory", async () => {
    const client = spawnServer({ env: env(), cwd: harness.sandbox.root });
    const started = await client.start({ cwd: "workspace" });
    expect(started.cwd).toBe(harness.sandbox.workspace);
    await client.finish();
  });
});

describe("seq (§4)", () => {
  it("numbers seq-bearing events 1, 2, 3, … without gaps across turns, queue events and clear", async () => {
    await harness.startProvider([
      textResponse(["a", "b", "c"], { input_tokens: 1 }),
      textResponse(["d"]),
      textResponse(["e", "f"]),
    ]);
    const client = spawnServer({ args: ["--stdio", "--base-url", harness.provider.url], env: env() });
    await client.start({ cwd: harness.sandbox.workspace });
    client.turn("one", "t1");
    client.turn("two", "t2");
    client.send({ type: "session.pause", request_id: "p", session_id: client.sessionId, paused: false });
    await client.next("turn.completed");
    await client.next("turn.completed");
    client.send({ type: "session.clear", request_id: "c", session_id: client.sessionId });
    await client.next("session.cleared");
    await client.next("queue.snapshot");
    client.turn("three", "t3");
    await client.next("turn.completed");
    await client.finish();
    const seqs = client.events.filter((event) => "seq" in event).map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(seqs.length).toBeGreaterThan(15);
    for (const event of client.events) {
      if (["initialized", "session.started", "error"].includes(event.type)) expect(event).not.toHaveProperty("seq");
      for (const [key, value] of Object.entries(event)) {
        // The documented nulls: a queue snapshot nobody asked for, and a cost at an unknown price.
        const mayBeNull = (event.type === "queue.snapshot" && key === "request_id") ||
          (event.type === "turn.completed" && (key === "cost_usd" || key === "session_cost_usd"));
        if (!mayBeNull) expect(value, `${event.type}.${key}`).not.toBeNull();
      }
    }
  });
});
