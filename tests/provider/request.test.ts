// Request shape of the Responses wire (spec §8.1, §8.2; checklist items 2, 4, 5/6 from the provider's side).
import { describe, expect, it } from "vitest";
import { type FakeResponse, startFakeProvider, textResponse } from "../support/fake_provider.ts";
import { at } from "../support/at.ts";
import {
  BASH_TOOL,
  type ClientOptions,
  CREDENTIAL,
  makeClient,
  READ_TOOL,
  run,
  useProviderClients,
} from "./helpers.ts";

const clients = useProviderClients();
const setup = (options: ClientOptions = {}, responses: FakeResponse[] = [textResponse(["ok"])]) =>
  clients.setup(responses, options);

describe("Responses request", () => {
  it("posts to <base_url>/responses with Content-Length, head and body in one write", async () => {
    const { fake, client } = await setup({ profile: { headers: { "X-Extra": "yes" } } });
    await run(client);
    const request = at(fake.requests, 0);
    expect(request.requestLine).toBe("POST /v1/responses HTTP/1.1");
    expect(request.headers.authorization).toBe(`Bearer ${CREDENTIAL}`);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["x-extra"]).toBe("yes");
    expect(request.chunked).toBe(false);
    expect(request.headers["transfer-encoding"]).toBeUndefined();
    expect(Number(request.headers["content-length"])).toBe(Buffer.byteLength(request.rawBody));
    expect(request.arrivedInOneRead).toBe(true);
  });

  it("strips trailing slashes from base_url", async () => {
    const fake = clients.track(await startFakeProvider([textResponse(["ok"])]));
    const client = clients.track(makeClient(`${fake.url}//`).client);
    await run(client);
    expect(at(fake.requests, 0).path).toBe("/v1/responses");
  });

  it("sends exactly model, instructions, input, stream, store:false, the encrypted-reasoning include and a cache key", async () => {
    const { fake, client } = await setup({ hostedWebSearch: true });
    await run(client, { instructions: "Be brief.", history: [{ kind: "user", content: "read the README" }] });
    const key = at(fake.requests, 0).body.prompt_cache_key;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(at(fake.requests, 0).body).toEqual({
      model: "fake-model",
      instructions: "Be brief.",
      input: [{ role: "user", content: "read the README" }],
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: key,
    });
  });

  it("lists function tools sorted by name with strict:false, then the hosted web_search tool", async () => {
    const { fake, client } = await setup({ hostedWebSearch: true, profile: { reasoning_effort: "high" } });
    await run(client, { tools: [READ_TOOL, BASH_TOOL] });
    const body = at(fake.requests, 0).body;
    expect(body.tools).toEqual([
      {
        type: "function",
        name: "bash",
        description: BASH_TOOL.description,
        parameters: BASH_TOOL.parameters,
        strict: false,
      },
      {
        type: "function",
        name: "read",
        description: READ_TOOL.description,
        parameters: READ_TOOL.parameters,
        strict: false,
      },
      { type: "web_search" },
    ]);
    expect(body.reasoning).toEqual({ effort: "high" });
    for (const key of ["tool_choice", "previous_response_id", "stream_options"]) expect(body).not.toHaveProperty(key);
  });

  it("leaves out web_search and reasoning when not configured", async () => {
    const { fake, client } = await setup();
    await run(client, { tools: [READ_TOOL] });
    expect(at(fake.requests, 0).body.tools).toEqual([
      {
        type: "function",
        name: "read",
        description: READ_TOOL.description,
        parameters: READ_TOOL.parameters,
        strict: false,
      },
    ]);
    expect(at(fake.requests, 0).body).not.toHaveProperty("reasoning");
  });

  it("replays a call and its result as exactly three items with compact arguments (checklist 4)", async () => {
    const { fake, client } = await setup();
    await run(client, {
      history: [
        { kind: "user", content: "read the README" },
        {
          kind: "assistant",
          content: "",
          calls: [{ call_id: "call_1", name: "read", arguments: { path: "README.md" } }],
        },
        { kind: "tool_result", call_id: "call_1", name: "read", output: '{"content":"fixture text"}', success: true },
      ],
    });
    const input = at(fake.requests, 0).body.input;
    expect(input).toHaveLength(3);
    expect(input[1]).toEqual({
      type: "function_call",
      call_id: "call_1",
      name: "read",
      arguments: '{"path":"README.md"}',
    });
    expect(Object.keys(input[1])).toEqual(["type", "call_id", "name", "arguments"]);
    expect(input[2]).toEqual({ type: "function_call_output", call_id: "call_1", output: '{"content":"fixture text"}' });
    expect(at(fake.requests, 0).rawBody).toContain('"arguments":"{\\"path\\":\\"README.md\\"}"');
  });

  it("maps assistant text and calls, and an empty text-only answer", async () => {
    const { fake, client } = await setup();
    await run(client, {
      history: [
        { kind: "user", content: "one" },
        { kind: "assistant", content: "", calls: [] },
        { kind: "user", content: "two" },
        {
          kind: "assistant",
          content: "Let me look.",
          calls: [
            { call_id: "a", name: "read", arguments: { path: "x", limit: 3 } },
            { call_id: "b", name: "bash", arguments: { command: "ls  -la" } },
          ],
        },
        { kind: "tool_result", call_id: "a", name: "read", output: "A", success: true },
        { kind: "tool_result", call_id: "b", name: "bash", output: "B", success: false },
        { kind: "assistant", content: "Done.", calls: [] },
      ],
    });
    expect(at(fake.requests, 0).body.input).toEqual([
      { role: "user", content: "one" },
      { role: "assistant", content: "" },
      { role: "user", content: "two" },
      { role: "assistant", content: "Let me look." },
      { type: "function_call", call_id: "a", name: "read", arguments: '{"path":"x","limit":3}' },
      { type: "function_call", call_id: "b", name: "bash", arguments: '{"command":"ls  -la"}' },
      { type: "function_call_output", call_id: "a", output: "A" },
      { type: "function_call_output", call_id: "b", output: "B" },
      { role: "assistant", content: "Done." },
    ]);
  });

  it("pairs orphan results with a synthetic call and closes unanswered calls", async () => {
    const unfinished = "Tool call did not complete: the turn ended before it returned a result.";
    const { fake, client } = await setup();
    await run(client, {
      history: [
        { kind: "tool_result", call_id: "orphan", name: "bash", output: "late", success: true },
        { kind: "user", content: "next" },
        {
          kind: "assistant",
          content: "",
          calls: [
            { call_id: "c1", name: "read", arguments: { path: "a" } },
            { call_id: "c2", name: "read", arguments: { path: "b" } },
          ],
        },
        { kind: "tool_result", call_id: "c2", name: "read", output: "B", success: true },
        { kind: "user", content: "again" },
        { kind: "assistant", content: "", calls: [{ call_id: "c3", name: "bash", arguments: { command: "true" } }] },
      ],
    });
    expect(at(fake.requests, 0).body.input).toEqual([
      { type: "function_call", call_id: "orphan", name: "bash", arguments: "{}" },
      { type: "function_call_output", call_id: "orphan", output: "late" },
      { role: "user", content: "next" },
      { type: "function_call", call_id: "c1", name: "read", arguments: '{"path":"a"}' },
      { type: "function_call", call_id: "c2", name: "read", arguments: '{"path":"b"}' },
      { type: "function_call_output", call_id: "c2", output: "B" },
      { type: "function_call_output", call_id: "c1", output: unfinished },
      { role: "user", content: "again" },
      { type: "function_call", call_id: "c3", name: "bash", arguments: '{"command":"true"}' },
      { type: "function_call_output", call_id: "c3", output: unfinished },
    ]);
  });

  it("treats a second result for the same call as an orphan", async () => {
    const { fake, client } = await setup();
    await run(client, {
      history: [
        { kind: "user", content: "go" },
        { kind: "assistant", content: "", calls: [{ call_id: "c1", name: "read", arguments: {} }] },
        { kind: "tool_result", call_id: "c1", name: "read", output: "first", success: true },
        { kind: "tool_result", call_id: "c1", name: "read", output: "second", success: true },
      ],
    });
    expect(at(fake.requests, 0).body.input.slice(1)).toEqual([
      { type: "function_call", call_id: "c1", name: "read", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "first" },
      { type: "function_call", call_id: "c1", name: "read", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "second" },
    ]);
  });

  it("replays the same body on every attempt", async () => {
    const { fake, client } = await setup({}, [{ status: 503, body: "busy" }, textResponse(["ok"])]);
    await run(client, { history: [{ kind: "user", content: "hello" }] });
    expect(fake.requests).toHaveLength(2);
    expect(at(fake.requests, 1).rawBody).toBe(at(fake.requests, 0).rawBody);
  });
});
