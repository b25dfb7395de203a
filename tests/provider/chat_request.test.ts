// Request shape of the Chat Completions wire (spec §8.3 with §8.1), over real HTTP.
import { describe, expect, it } from "vitest";
import { chatTextResponse, type FakeResponse, startFakeProvider } from "../support/fake_provider.ts";
import {
  BASH_TOOL,
  type ClientOptions,
  CREDENTIAL,
  makeClient,
  READ_TOOL,
  run,
  useProviderClients,
} from "./helpers.ts";
import { UNFINISHED_CALL_OUTPUT } from "../../lib/provider/pairing.ts";
import type { HistoryItem } from "../../lib/provider/types.ts";

const clients = useProviderClients({ profile: { wire_api: "chat" } });
const setup = (options: ClientOptions = {}, responses: FakeResponse[] = [chatTextResponse(["ok"])]) =>
  clients.setup(responses, options);

describe("Chat Completions request", () => {
  it("posts to <base_url>/chat/completions with the credential, Content-Length, head and body in one write", async () => {
    const fake = clients.track(await startFakeProvider([chatTextResponse(["ok"])]));
    const client = clients.track(
      makeClient(`${fake.url}/`, { profile: { wire_api: "chat", headers: { "X-Extra": "yes" } } }).client,
    );
    await run(client);
    const [request] = fake.requests;
    expect(request!.requestLine).toBe("POST /v1/chat/completions HTTP/1.1");
    expect(request!.headers.authorization).toBe(`Bearer ${CREDENTIAL}`);
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["x-extra"]).toBe("yes");
    expect(request!.chunked).toBe(false);
    expect(Number(request!.headers["content-length"])).toBe(Buffer.byteLength(request!.rawBody));
    expect(request!.arrivedInOneRead).toBe(true);
  });

  it("sends model, system + user messages, stream and stream_options, and no tools key without tools", async () => {
    const { fake, client } = await setup();
    await run(client, { instructions: "Be brief.", history: [{ kind: "user", content: "read the README" }] });
    const body = fake.requests[0]!.body;
    expect(body).toEqual({
      model: "fake-model",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "read the README" },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(Object.keys(body)).toEqual(["model", "messages", "stream", "stream_options"]);
  });

  it("lists function tools as {type, function:{name, description, parameters}} and reasoning_effort top-level", async () => {
    const { fake, client } = await setup({ profile: { reasoning_effort: "low" } });
    await run(client, { tools: [READ_TOOL, BASH_TOOL] });
    const body = fake.requests[0]!.body;
    expect(body.tools).toEqual([
      {
        type: "function",
        function: { name: "bash", description: BASH_TOOL.description, parameters: BASH_TOOL.parameters },
      },
      {
        type: "function",
        function: { name: "read", description: READ_TOOL.description, parameters: READ_TOOL.parameters },
      },
    ]);
    expect(body.reasoning_effort).toBe("low");
    for (const key of ["reasoning", "instructions", "input", "store", "tool_choice"])
      expect(body).not.toHaveProperty(key);
  });

  it("never sends hosted search and warns once per client when search = provider", async () => {
    const warnings: string[] = [];
    const { fake, client } = await setup({ hostedWebSearch: true, warn: (message) => warnings.push(message) }, [
      chatTextResponse(["one"]),
      chatTextResponse(["two"]),
    ]);
    await run(client, { tools: [READ_TOOL] });
    await run(client, { tools: [READ_TOOL] });
    for (const request of fake.requests) {
      expect(request.body.tools).toHaveLength(1);
      expect(request.rawBody).not.toContain("web_search");
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('search = "provider"');
  });

  it("does not warn without hosted search", async () => {
    const warnings: string[] = [];
    const { client } = await setup({ warn: (message) => warnings.push(message) });
    await run(client, { tools: [READ_TOOL] });
    expect(warnings).toEqual([]);
  });

  it("replays assistant text and tool_calls with parsed-then-compact arguments and role:tool results", async () => {
    const { fake, client } = await setup();
    const history: HistoryItem[] = [
      { kind: "user", content: "read the README" },
      {
        kind: "assistant",
        content: "",
        calls: [{ call_id: "call_1", name: "read", arguments: { path: "README.md" } }],
      },
      { kind: "tool_result", call_id: "call_1", name: "read", output: '{"content":"hi"}', success: true },
      {
        kind: "assistant",
        content: "Two at once.",
        calls: [
          { call_id: "call_2", name: "bash", arguments: { command: "ls" } },
          { call_id: "call_3", name: "read", arguments: { path: "a b.txt", limit: 1 } },
        ],
      },
      { kind: "tool_result", call_id: "call_2", name: "bash", output: "x", success: true },
      { kind: "tool_result", call_id: "call_3", name: "read", output: "y", success: false },
      { kind: "assistant", content: "It says hi.", calls: [] },
      { kind: "user", content: "thanks" },
    ];
    await run(client, { history, instructions: "SYS" });
    expect(fake.requests[0]!.body.messages).toEqual([
      { role: "system", content: "SYS" },
      { role: "user", content: "read the README" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"README.md"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"content":"hi"}' },
      {
        role: "assistant",
        content: "Two at once.",
        tool_calls: [
          { id: "call_2", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          { id: "call_3", type: "function", function: { name: "read", arguments: '{"path":"a b.txt","limit":1}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_2", content: "x" },
      { role: "tool", tool_call_id: "call_3", content: "y" },
      { role: "assistant", content: "It says hi." },
      { role: "user", content: "thanks" },
    ]);
  });

  it("pairs calls and results: synthetic assistant for an orphan result, synthetic tool message for an unanswered call", async () => {
    const { fake, client } = await setup();
    const history: HistoryItem[] = [
      { kind: "user", content: "go" },
      { kind: "tool_result", call_id: "orphan", name: "bash", output: "late", success: true },
      {
        kind: "assistant",
        content: "",
        calls: [
          { call_id: "c1", name: "read", arguments: { path: "x" } },
          { call_id: "c2", name: "read", arguments: { path: "y" } },
        ],
      },
      { kind: "tool_result", call_id: "c2", name: "read", output: "why", success: true },
      { kind: "user", content: "next" },
      { kind: "assistant", content: "", calls: [{ call_id: "c3", name: "bash", arguments: {} }] },
    ];
    await run(client, { history });
    expect(fake.requests[0]!.body.messages.slice(1)).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "orphan", type: "function", function: { name: "bash", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "orphan", content: "late" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "read", arguments: '{"path":"x"}' } },
          { id: "c2", type: "function", function: { name: "read", arguments: '{"path":"y"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c2", content: "why" },
      { role: "tool", tool_call_id: "c1", content: UNFINISHED_CALL_OUTPUT },
      { role: "user", content: "next" },
      {
        role: "assistant",
        content: "",
        tool_calls: [{ id: "c3", type: "function", function: { name: "bash", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c3", content: UNFINISHED_CALL_OUTPUT },
    ]);
  });
});
