// Persistent sessions through the real server (docs/sessions.md): journal files and modes, resume after a normal
// exit, after `kill -9` mid-turn and after a torn line (the provider sees the earlier history), fork, delete,
// list, and the journal never holding the credential.
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { type ServerClient, spawnServer } from "../support/server_client.ts";
import { useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness();

const sessionsDir = () => join(harness.sandbox.home, "sessions");
const journalOf = (id: string) => join(sessionsDir(), `${id}.ndjson`);

/** A server on the harness's provider (already started), initialized but without a session. */
async function bareServer(env: Record<string, string | undefined> = {}): Promise<ServerClient> {
  const client = spawnServer({ args: harness.flags(harness.provider.url), env: harness.env(env) });
  await client.initialize();
  return client;
}

async function oneTurn(
  script: FakeResponse[],
  prompt: string,
  env: Record<string, string | undefined> = {},
): Promise<string> {
  const client = await harness.startServer(script, { env });
  client.turn(prompt);
  await client.next("turn.completed");
  const id = client.sessionId;
  await client.finish();
  return id;
}

async function resume(client: ServerClient, id: string, requestId = "resume") {
  client.send({ type: "session.resume", request_id: requestId, session_id: id });
  const started = await client.next(["session.started", "error"]);
  if (started.type !== "session.started") return { started, replay: undefined };
  const replay = await client.next("session.replay");
  await client.next("queue.snapshot");
  client.sessionId = id;
  return { started, replay };
}

const inputText = (index: number) => JSON.stringify(harness.provider.requests[index]!.body.input);

describe("session journal", () => {
  it("is written under <home>/sessions with private modes and resumes after a normal exit", async () => {
    const id = await oneTurn([textResponse(["first ", "answer"])], "first question");
    expect(statSync(sessionsDir()).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(sessionsDir())) expect(statSync(join(sessionsDir(), name)).mode & 0o777).toBe(0o600);
    expect(existsSync(journalOf(id))).toBe(true);

    harness.provider.push(textResponse(["second answer"]));
    const client = await bareServer();
    const { started, replay } = await resume(client, id);
    expect(started).toMatchObject({
      type: "session.started",
      request_id: "resume",
      session_id: id,
      cwd: harness.sandbox.workspace,
    });
    expect(replay).toMatchObject({
      type: "session.replay",
      request_id: "resume",
      session_id: id,
      omitted_turns: 0,
      warnings: [],
      turns: [{ prompt: "first question", answer: "first answer", tools: [], status: "completed" }],
    });
    client.turn("second question");
    expect(await client.next("turn.completed")).toMatchObject({ session_id: id });
    const input = inputText(1);
    expect(input).toContain("first question");
    expect(input).toContain("first answer");
    expect(input).toContain("second question");
    await client.finish();
  });

  it("resumes with the model session.configure switched to", async () => {
    const client = await harness.startServer([textResponse(["a"]), textResponse(["b"])]);
    const id = client.sessionId;
    client.turn("first");
    await client.next("turn.completed");
    client.send({ type: "session.configure", request_id: "c", session_id: id, model: "other-model" });
    await client.next("session.configured");
    await client.finish();

    // No --model flag this time: the stored model applies.
    const again = spawnServer({ args: ["--stdio", "--base-url", harness.provider.url], env: harness.env() });
    await again.initialize();
    const { started } = await resume(again, id);
    expect(started).toMatchObject({ type: "session.started", model: "other-model" });
    again.turn("second");
    await again.next("turn.completed");
    expect(harness.provider.requests[1]!.body.model).toBe("other-model");
    await again.finish();
  });

  it("after kill -9 mid-turn keeps the completed turns and drops the one in flight", async () => {
    const bash = toolCallResponse([{
      call_id: "call_1",
      name: "bash",
      arguments: { command: "rm -rf build && make" },
    }]);
    const client = await harness.startServer([textResponse(["kept answer"]), bash]);
    const id = client.sessionId;
    client.turn("kept question");
    await client.next("turn.completed");
    client.turn("question in flight");
    await client.next("approval.requested");
    client.child.kill("SIGKILL");
    await client.exit();

    harness.provider.push(textResponse(["after crash"]));
    const again = await bareServer();
    const { replay } = await resume(again, id);
    expect(replay!.turns.map((turn: { prompt: string; status: string }) => [turn.prompt, turn.status])).toEqual([
      ["kept question", "completed"],
      ["question in flight", "interrupted"],
    ]);
    again.turn("next question");
    await again.next("turn.completed");
    const input = inputText(2);
    expect(input).toContain("kept question");
    expect(input).toContain("kept answer");
    expect(input).not.toContain("question in flight");
    await again.finish();
  });

  it("fits a resumed history to the context budget, compacting as usual", async () => {
    await harness.sandbox.writeUserConfig(
      "[context]\nmax_tokens = 3000\nreserve_output_tokens = 100\nsafety_margin_tokens = 100\n",
    );
    const long = (tag: string) => textResponse([`${tag} `.repeat(600)]);
    const client = await harness.startServer([long("alpha"), long("beta"), long("gamma")], {
      start: { no_tools: true },
    });
    const id = client.sessionId;
    for (const prompt of ["one", "two", "three"]) {
      client.turn(prompt);
      await client.next("turn.completed");
    }
    await client.finish();

    harness.provider.push(textResponse(["fits"]));
    const again = await bareServer();
    again.send({ type: "session.resume", request_id: "r", session_id: id, no_tools: true });
    await again.next("queue.snapshot");
    again.sessionId = id;
    again.turn("four");
    const compacted = await again.next(["context.compacted", "turn.completed", "turn.failed"]);
    expect(compacted).toMatchObject({ type: "context.compacted", session_id: id });
    expect(compacted.removed_messages).toBeGreaterThan(0);
    await again.next("turn.completed");
    const input = inputText(3);
    expect(input).toContain("[SCV compacted");
    expect(input).toContain("gamma");
    expect(input).toContain("four");
    await again.finish();
  });

  it("recovers the intact prefix of a journal with a torn last line, says so, and goes on writing", async () => {
    const id = await oneTurn([textResponse(["intact answer"])], "intact question");
    appendFileSync(journalOf(id), '{"type":"turn.started","at":"2026-01-01T00:00:00Z","turn_id":"x","prom');

    harness.provider.push(textResponse(["later answer"]));
    const client = await bareServer();
    const { replay } = await resume(client, id);
    expect(replay!.warnings.join(" ")).toMatch(/torn/);
    expect(replay!.turns).toHaveLength(1);
    client.turn("later question");
    await client.next("turn.completed");
    expect(inputText(1)).toContain("intact answer");
    await client.finish();

    // The next writer started a fresh line: a third resume reads both turns and nothing is torn any more.
    const third = await bareServer();
    const { replay: after } = await resume(third, id);
    expect(after!.warnings).toEqual([]);
    expect(after!.turns.map((turn: { prompt: string }) => turn.prompt)).toEqual(["intact question", "later question"]);
    await third.finish();
  });

  it("reports a damaged journal as an error and keeps serving", async () => {
    await harness.startProvider([]);
    await mkdir(sessionsDir(), { recursive: true, mode: 0o700 });
    const id = "0b6f5a0e-5f0a-4c1e-9a43-5d2f8f0e7c11";
    await writeFile(journalOf(id), "\u0000\u0001 not json\n", { mode: 0o600 });
    const client = await bareServer();
    const { started } = await resume(client, id);
    expect(started).toMatchObject({ type: "error", request_id: "resume", code: "invalid_request" });
    client.send({ type: "session.list", request_id: "list" });
    expect(await client.next()).toMatchObject({ type: "sessions.listed", request_id: "list" });
    await client.finish();
  });

  it("never writes the API key, even when a prompt or a tool output carries it", async () => {
    const key = "sk-test-Zq9SECRETvalue1234";
    await harness.sandbox.writeUserConfig('[tools]\napproval_policy = "never"\n');
    await writeFile(join(harness.sandbox.workspace, "notes.txt"), `the key is ${key}\n`);
    const read = toolCallResponse([{ call_id: "call_1", name: "read", arguments: { path: "notes.txt" } }]);
    const client = await harness.startServer([read, textResponse([`I saw ${key}`])], { env: { OPENAI_API_KEY: key } });
    client.turn(`remember ${key} please`);
    await client.next("turn.completed");
    await client.finish();
    const files = readdirSync(sessionsDir());
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const name of files) expect(readFileSync(join(sessionsDir(), name), "utf8")).not.toContain(key);
    expect(readFileSync(journalOf(client.sessionId), "utf8")).toContain("[REDACTED]");
  });
});

describe("session requests", () => {
  it("lists sessions newest first, for a workspace or all", async () => {
    const first = await oneTurn([textResponse(["a"])], "older session");
    const second = await oneTurn([textResponse(["b"])], "newer session");
    const other = join(harness.sandbox.workspace, "..", "other");
    await mkdir(other);
    const elsewhere = await harness.startServer([textResponse(["c"])], { start: { cwd: other } });
    elsewhere.turn("elsewhere");
    await elsewhere.next("turn.completed");
    await elsewhere.finish();

    const client = await bareServer();
    client.send({ type: "session.list", request_id: "l1", cwd: harness.sandbox.workspace });
    const listed = await client.next();
    expect(listed).toMatchObject({ type: "sessions.listed", request_id: "l1", omitted: 0 });
    expect(listed.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([second, first]);
    expect(listed.sessions[0]).toMatchObject({
      cwd: harness.sandbox.workspace,
      title: "newer session",
      turns: 1,
      model: "fake-model",
    });
    client.send({ type: "session.list", request_id: "l2", all: true, limit: 2 });
    const all = await client.next();
    expect(all.sessions).toHaveLength(2);
    expect(all.omitted).toBe(1);
    expect(all.sessions[0].session_id).toBe(elsewhere.sessionId);
    await client.finish();
  });

  it("forks a session into a new id and leaves the original untouched", async () => {
    const id = await oneTurn([textResponse(["original answer"])], "original question");
    const before = readFileSync(journalOf(id), "utf8");
    harness.provider.push(textResponse(["fork answer"]));
    const client = await bareServer();
    client.send({ type: "session.fork", request_id: "f", session_id: id });
    const forked = await client.next();
    expect(forked).toMatchObject({ type: "session.forked", request_id: "f", forked_from: id });
    expect(forked.session_id).not.toBe(id);
    const { started, replay } = await resume(client, forked.session_id);
    expect(started.session_id).toBe(forked.session_id);
    expect(replay!.turns.map((turn: { prompt: string }) => turn.prompt)).toEqual(["original question"]);
    client.turn("fork question");
    await client.next("turn.completed");
    expect(inputText(1)).toContain("original answer");
    await client.finish();
    expect(readFileSync(journalOf(id), "utf8")).toBe(before);
  });

  it("deletes a session; a missing, deleted or malformed id is session_not_found and touches nothing", async () => {
    const id = await oneTurn([textResponse(["x"])], "to delete");
    const configPath = await harness.sandbox.writeUserConfig("");
    const client = await bareServer();
    client.send({ type: "session.delete", request_id: "d1", session_id: id });
    expect(await client.next()).toEqual({ type: "session.deleted", request_id: "d1", session_id: id });
    expect(existsSync(journalOf(id))).toBe(false);
    for (
      const [request, message] of [
        [{ type: "session.delete", request_id: "d2", session_id: id }, `session ${id} was not found`],
        [{ type: "session.resume", request_id: "d3", session_id: id }, `session ${id} was not found`],
        [{ type: "session.delete", request_id: "d4", session_id: "../config" }, "session ../config was not found"],
        [
          { type: "session.fork", request_id: "d5", session_id: "../../scv-home/config.toml" },
          "session ../../scv-home/config.toml was not found",
        ],
      ] as const
    ) {
      client.send(request);
      expect(await client.next()).toEqual({
        type: "error",
        request_id: request.request_id,
        code: "session_not_found",
        message,
        fatal: false,
      });
    }
    expect(existsSync(configPath)).toBe(true);
    client.send({ type: "session.list", request_id: "l", all: true });
    expect((await client.next()).sessions).toEqual([]);
    await client.finish();
  });

  it("prunes by the user's [sessions] keep_count when a session starts, never the one starting", async () => {
    await harness.sandbox.writeUserConfig("[sessions]\nkeep_count = 1\n");
    const first = await oneTurn([textResponse(["a"])], "first");
    harness.provider.push(textResponse(["b"]));
    const client = await bareServer();
    // Resuming the only session prunes nothing.
    await resume(client, first);
    await client.finish();
    expect(existsSync(journalOf(first))).toBe(true);
    const second = await oneTurn([textResponse(["b"])], "second");
    expect(existsSync(journalOf(first))).toBe(false);
    expect(existsSync(journalOf(second))).toBe(true);
  });

  it("refuses a project file that would prune or switch off the user's sessions", async () => {
    const file = await harness.sandbox.writeProjectConfig("[sessions]\nkeep_count = 1\n");
    await harness.startProvider([]);
    const client = spawnServer({ args: harness.flags(harness.provider.url), env: harness.env() });
    await client.initialize();
    client.send({ type: "session.start", request_id: "s", cwd: harness.sandbox.workspace });
    expect(await client.next()).toMatchObject({
      type: "error",
      code: "invalid_request",
      message: `project configuration ${file} cannot set [sessions]`,
    });
    await client.finish();
  });
});
