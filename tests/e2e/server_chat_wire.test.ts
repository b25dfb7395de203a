// The Chat Completions wire (spec §8.3) end to end: `node main.ts server --stdio` with a `wire_api = "chat"`
// profile against the fake provider over real HTTP.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fakeProfileToml } from "../support/config_files.ts";
import { chat, chatTextResponse, type FakeResponse } from "../support/fake_provider.ts";
import type { ServerClient } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";

// Protocol rules: the server runs in-process (the spawned CLI is covered by server_seeds and others).
const harness = useServerHarness(undefined, { inProcess: true });

async function startServer(script: FakeResponse[], extraToml = ""): Promise<ServerClient> {
  await harness.startProvider(script);
  await harness.sandbox.writeUserConfig(
    fakeProfileToml({ name: "local", baseUrl: harness.provider.url, model: "llama3.1", apiKey: "local" }) +
      'wire_api = "chat"\n' + extraToml,
  );
  const client = harness.server({ env: harness.sandbox.env() });
  await client.start({ cwd: harness.sandbox.workspace });
  return client;
}

describe("Chat Completions wire through the CLI (§8.3)", () => {
  it("runs a read call assembled from fragments and replays tool_calls + role:tool in the next request", async () => {
    await writeFile(path.join(harness.sandbox.workspace, "README.md"), "hello from the readme\n");
    const client = await startServer([
      {
        mode: "chunked",
        events: [
          chat.delta({ role: "assistant", content: "" }),
          chat.text("Reading it."),
          chat.toolCalls({ index: 0, id: "call_r1", type: "function" }),
          chat.toolCalls({ index: 0, name: "read" }),
          chat.toolCalls({ index: 0, arguments: '{"pa' }),
          chat.toolCalls({ index: 0, arguments: 'th": "READ' }),
          chat.toolCalls({ index: 0, arguments: 'ME.md"}' }),
          chat.finish("tool_calls"),
          chat.usage(50, 7),
          chat.done(),
        ],
      },
      chatTextResponse(["It says ", "hello."], { prompt_tokens: 80, completion_tokens: 3 }),
    ]);
    client.turn("read the README", "t1");
    const end = await terminal(client);
    expect(end).toMatchObject({ type: "turn.completed", steps: 2, usage: { input_tokens: 130, output_tokens: 10 } });

    const proposed = client.events.find((event) => event.type === "tool.proposed")!;
    expect(proposed).toMatchObject({ call_id: "call_r1", name: "read", arguments: { path: "README.md" } });
    const completed = client.events.find((event) => event.type === "tool.completed")!;
    expect(completed).toMatchObject({ call_id: "call_r1", success: true });
    expect(JSON.parse(completed.output)).toMatchObject({ path: "README.md", content: "hello from the readme\n" });
    const deltas = client.events.filter((event) => event.type === "assistant.delta").map((event) => event.content);
    expect(deltas).toEqual(["Reading it.", "It says ", "hello."]);
    const assistants = client.events.filter((event) => event.type === "assistant.completed").map((event) =>
      event.content
    );
    expect(assistants).toEqual(["Reading it.", "It says hello."]);
    await client.finish();

    expect(harness.provider.requests).toHaveLength(2);
    const [first, second] = harness.provider.requests;
    for (const request of [first!, second!]) {
      expect(request.requestLine).toBe("POST /v1/chat/completions HTTP/1.1");
      expect(request.headers.authorization).toBe("Bearer local");
      expect(request.chunked).toBe(false);
      expect(request.body).toMatchObject({ model: "llama3.1", stream: true, stream_options: { include_usage: true } });
      expect(request.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain("read");
      for (const tool of request.body.tools) expect(Object.keys(tool)).toEqual(["type", "function"]);
    }
    const system = first!.body.messages[0];
    expect(system.role).toBe("system");
    expect(system.content).toContain(`\nCurrent working directory: ${harness.sandbox.workspace}\n`);
    expect(first!.body.messages.slice(1)).toEqual([{ role: "user", content: "read the README" }]);
    expect(second!.body.messages[0]).toEqual(system);
    expect(second!.body.messages.slice(1)).toEqual([
      { role: "user", content: "read the README" },
      {
        role: "assistant",
        content: "Reading it.",
        tool_calls: [{
          id: "call_r1",
          type: "function",
          function: { name: "read", arguments: '{"path":"README.md"}' },
        }],
      },
      { role: "tool", tool_call_id: "call_r1", content: completed.output },
    ]);
  });

  it("fails the turn with provider_error on finish_reason length", async () => {
    const client = await startServer([{ events: [chat.text("cut"), chat.finish("length"), chat.done()] }]);
    client.turn("go");
    const end = await terminal(client);
    expect(end).toMatchObject({
      type: "turn.failed",
      code: "provider_error",
      message: "provider response incomplete: length",
    });
    await client.finish();
  });

  it("never sends hosted search and warns about search = provider on stderr", async () => {
    const client = await startServer(
      [chatTextResponse(["ok"]), chatTextResponse(["ok"])],
      '\n[web]\nenabled = true\nsearch = "provider"\n',
    );
    client.turn("one", "t1");
    expect((await terminal(client)).type).toBe("turn.completed");
    client.turn("two", "t2");
    expect((await terminal(client)).type).toBe("turn.completed");
    await client.finish();
    for (const request of harness.provider.requests) {
      expect(request.rawBody).not.toContain('"web_search"');
      expect(request.body.tools.every((tool: { name?: string; type?: string }) => tool.type === "function")).toBe(true);
    }
    expect(client.stderr.match(/search = "provider"/g)).toHaveLength(1);
  });
});
