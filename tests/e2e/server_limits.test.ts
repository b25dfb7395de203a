// Spec §11 item 25 (usage and limits) and §6.6 (context compaction, session trimming) against the real CLI.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createConfigSandbox, type ConfigSandbox } from "../support/config_files.ts";
import { startFakeProvider, textResponse, toolCallResponse, type FakeProvider } from "../support/fake_provider.ts";
import { killAllServers, spawnServer, type ServerClient } from "../support/server_client.ts";

let sandbox: ConfigSandbox;
let provider: FakeProvider | undefined;

beforeEach(async () => {
  sandbox = await createConfigSandbox();
});

afterEach(async () => {
  killAllServers();
  await provider?.close();
  provider = undefined;
  await sandbox.cleanup();
});

type Script = Parameters<typeof startFakeProvider>[0];

async function startServer(script: Script, toml = "", fields: Record<string, unknown> = {}): Promise<ServerClient> {
  provider = await startFakeProvider(script);
  if (toml) await sandbox.writeUserConfig(toml);
  const client = spawnServer({
    args: ["--stdio", "--model", "fake-model", "--base-url", provider.url],
    env: sandbox.env({ OPENAI_API_KEY: "test-only" }),
  });
  await client.start({ cwd: sandbox.workspace, ...fields });
  return client;
}

const terminal = (client: ServerClient) => client.next(["turn.completed", "turn.failed", "turn.cancelled"]);

describe("usage (§8.1)", () => {
  it("sums usage over steps and reports {} when no step reported it", async () => {
    const client = await startServer([
      { events: [...toolCallResponse([{ call_id: "c1", name: "nope", arguments: {} }]).events.slice(0, -1), { type: "response.completed", response: { usage: { input_tokens: 5, output_tokens: 1 } } }] },
      textResponse(["done"], { input_tokens: 7, output_tokens: 3 }),
      textResponse(["plain"]),
    ]);
    client.turn("one");
    expect(await terminal(client)).toMatchObject({ type: "turn.completed", steps: 2, usage: { input_tokens: 12, output_tokens: 4 } });
    client.turn("two");
    const second = await terminal(client);
    expect(second).toMatchObject({ type: "turn.completed", steps: 1 });
    expect(second.usage).toEqual({});
    await client.finish();
  });
});

describe("limits (§5.2)", () => {
  it("fails with response_limit when the assistant text exceeds its limit, restoring the history", async () => {
    const client = await startServer(
      [textResponse(["0123456789", "0123456789"]), textResponse(["fine"])],
      "[provider_limits]\nmax_assistant_bytes = 16\n",
    );
    client.turn("too long");
    const failed = await terminal(client);
    expect(failed).toMatchObject({ type: "turn.failed", code: "response_limit", message: "assistant response exceeded byte limit" });
    expect(client.events.some((event) => event.type === "assistant.completed")).toBe(false);
    client.turn("short");
    expect((await terminal(client)).type).toBe("turn.completed");
    expect(provider!.requests[1]!.body.input).toEqual([{ role: "user", content: "short" }]);
    await client.finish();
  });

  it("fails with tool_limit on 33 calls and runs none of them", async () => {
    const calls = Array.from({ length: 33 }, (_, index) => ({ call_id: `c${index}`, name: "bash", arguments: { command: "touch ran" } }));
    const client = await startServer([toolCallResponse(calls)]);
    client.turn("many");
    expect(await terminal(client)).toMatchObject({ type: "turn.failed", code: "tool_limit", message: "provider returned too many tool calls" });
    expect(client.events.some((event) => event.type === "tool.proposed")).toBe(false);
    await client.finish();
  });

  it("fails with step_limit after agent.max_steps and restores the checkpoint", async () => {
    const call = (id: string) => toolCallResponse([{ call_id: id, name: "nope", arguments: {} }]);
    const client = await startServer([call("c1"), call("c2"), textResponse(["after"])], "[agent]\nmax_steps = 2\n");
    client.turn("loop", "t1");
    expect(await terminal(client)).toMatchObject({ type: "turn.failed", request_id: "t1", code: "step_limit", message: "agent reached 2 steps" });
    expect(client.events.filter((event) => event.type === "assistant.completed")).toHaveLength(2);
    client.turn("again", "t2");
    expect((await terminal(client)).type).toBe("turn.completed");
    expect(provider!.requests[2]!.body.input).toEqual([{ role: "user", content: "again" }]);
    await client.finish();
  });
});

describe("context budget (§6.6)", () => {
  const tightContext = "[context]\nmax_tokens = 2000\nreserve_output_tokens = 1\nsafety_margin_tokens = 1\nbytes_per_token = 1\n";

  it("compacts older groups into one note and keeps the newest", async () => {
    const client = await startServer([textResponse(["ok"]), textResponse(["ok2"])], tightContext, { no_tools: true });
    client.turn("a".repeat(900), "t1");
    expect((await terminal(client)).type).toBe("turn.completed");
    client.turn("b".repeat(900), "t2");
    const compacted = await client.next(["context.compacted", "turn.completed", "turn.failed"]);
    expect(compacted.type).toBe("context.compacted");
    expect(Object.keys(compacted)).toEqual(["type", "request_id", "session_id", "turn_id", "seq", "before_tokens", "after_tokens", "removed_messages"]);
    expect(compacted.removed_messages).toBe(2);
    expect(compacted.before_tokens).toBeGreaterThan(compacted.after_tokens);
    const started = client.events.find((event) => event.type === "turn.started" && event.request_id === "t2")!;
    expect(compacted.seq).toBe(started.seq + 1);
    expect((await terminal(client)).type).toBe("turn.completed");
    const input = provider!.requests[1]!.body.input;
    expect(input).toHaveLength(2);
    expect(input[0].role).toBe("user");
    expect(input[0].content).toBe(`[SCV compacted 2 earlier messages. Bounded extracts follow.]\nuser: ${"a".repeat(240)}\nassistant: ok`);
    expect(input[1]).toEqual({ role: "user", content: "b".repeat(900) });
    await client.finish();
  });

  it("fails with context_limit when the newest turn or the fixed part cannot fit", async () => {
    const client = await startServer([textResponse(["never"])], tightContext, { no_tools: true });
    client.turn("c".repeat(3000));
    expect(await terminal(client)).toMatchObject({ type: "turn.failed", code: "context_limit", message: "newest turn exceeds context budget" });
    await client.finish();
    expect(provider!.requests).toHaveLength(0);
  });

  it("fails with context_limit when the system prompt and tool schemas exceed the budget", async () => {
    const client = await startServer([textResponse(["never"])], tightContext.replace("max_tokens = 2000", "max_tokens = 600"));
    client.turn("hi");
    expect(await terminal(client)).toMatchObject({
      type: "turn.failed",
      code: "context_limit",
      message: "system prompt and tool schemas exceed context budget",
    });
    await client.finish();
  });
});

describe("session history limits (§6.6)", () => {
  it("trims the oldest groups into a note, announced before turn.completed", async () => {
    const client = await startServer([textResponse(["one"]), textResponse(["two"]), textResponse(["three"])], "[session]\nmax_messages = 3\n");
    client.turn("first", "t1");
    expect((await terminal(client)).type).toBe("turn.completed");
    client.turn("second", "t2");
    const trimmed = await client.next(["session.trimmed", "turn.completed"]);
    expect(trimmed.type).toBe("session.trimmed");
    expect(Object.keys(trimmed)).toEqual(["type", "request_id", "session_id", "seq", "removed_messages", "history_bytes"]);
    expect(trimmed).toMatchObject({ request_id: "t2", removed_messages: 2 });
    expect(trimmed.history_bytes).toBeGreaterThan(0);
    expect(await client.next()).toMatchObject({ type: "turn.completed", request_id: "t2" });
    client.turn("third", "t3");
    await terminal(client);
    const input = provider!.requests[2]!.body.input;
    expect(input.map((item: any) => item.content)).toEqual([
      "[SCV compacted 2 earlier messages. Bounded extracts follow.]\nuser: first\nassistant: one",
      "second",
      "two",
      "third",
    ]);
    await client.finish();
  });

  it("fails a turn that alone exceeds the history limit with history_limit", async () => {
    const client = await startServer(
      [toolCallResponse([{ call_id: "c1", name: "nope", arguments: {} }]), textResponse(["done"]), textResponse(["next"])],
      "[session]\nmax_messages = 3\n",
    );
    client.turn("big turn", "t1");
    expect(await terminal(client)).toMatchObject({
      type: "turn.failed",
      code: "history_limit",
      message: "active turn exceeds session history limit",
    });
    client.turn("small", "t2");
    expect((await terminal(client)).type).toBe("turn.completed");
    expect(provider!.requests[2]!.body.input).toEqual([{ role: "user", content: "small" }]);
    await client.finish();
  });
});
