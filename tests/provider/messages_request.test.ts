// The Messages wire's request body: checked against the official SDK's request types (at compile time, by tsc over
// this file), and as sent over HTTP: max_tokens, thinking, tools, tool results with is_error, images, thinking
// blocks sent back unchanged and in place, and at most four cache breakpoints where a long session needs them.
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { defaultMaxOutputTokens, maxOutputTokens } from "../../lib/provider/claude_models.ts";
import { buildMessagesBody } from "../../lib/provider/messages_request.ts";
import type { HistoryItem, ProviderRequest } from "../../lib/provider/types.ts";
import { messagesTextResponse } from "../support/fake_provider.ts";
import { BASH_TOOL, READ_TOOL, run, useProviderClients } from "./helpers.ts";

const { setup } = useProviderClients({
  profile: { kind: "anthropic", wire_api: "messages", model: "claude-sonnet-4-5" },
});

const THINKING = { type: "thinking" as const, thinking: "Read the file first.", signature: "EqoBCkgIARAB+sig==" };
const REDACTED = { type: "redacted_thinking" as const, data: "EmwKAhgBEgy3va3p==" };

/** A turn in progress: a prompt, a thinking response that called two tools, their results. */
const TOOL_LOOP: HistoryItem[] = [
  { kind: "user", content: "What do a.txt and b.txt say?" },
  {
    kind: "assistant",
    content: "Reading both.",
    calls: [
      { call_id: "toolu_a", name: "read", arguments: { path: "a.txt" } },
      { call_id: "toolu_b", name: "read", arguments: { path: "b.txt" } },
    ],
    replay: {
      blocks: [THINKING, REDACTED, { type: "text", length: 13 }, { type: "tool_use", id: "toolu_a" }, {
        type: "tool_use",
        id: "toolu_b",
      }],
    },
  },
  { kind: "tool_result", call_id: "toolu_a", name: "read", output: "alpha", success: true },
  { kind: "tool_result", call_id: "toolu_b", name: "read", output: "no such file: b.txt", success: false },
];

function request(history: HistoryItem[], tools = [READ_TOOL, BASH_TOOL]): ProviderRequest {
  return { model: "claude-sonnet-4-5", instructions: "You are SCV.", history, tools };
}

describe("the body against the official SDK's types", () => {
  it("buildMessagesBody's result is a MessageCreateParamsStreaming", () => {
    // tsc fails on this file if the body's type strays from the SDK's request type.
    const body: Anthropic.MessageCreateParamsStreaming = buildMessagesBody(request(TOOL_LOOP), {
      maxTokens: 32000,
      thinkingBudget: 4096,
    });
    const blocks: Anthropic.ContentBlockParam[] = body.messages.flatMap((message) =>
      typeof message.content === "string" ? [] : message.content
    );
    expect(blocks.map((block) => block.type)).toEqual([
      "text",
      "thinking",
      "redacted_thinking",
      "text",
      "tool_use",
      "tool_use",
      "tool_result",
      "tool_result",
    ]);
    expect(body.stream).toBe(true);
  });
});

describe("over the wire", () => {
  it("model, max_tokens for the model, system and tools with their schemas; no thinking unless configured", async () => {
    const { fake, client } = await setup([messagesTextResponse(["ok"])]);
    await run(client, { tools: [READ_TOOL, BASH_TOOL] });
    const body = fake.requests[0]!.body;
    expect(body.model).toBe("fake-model");
    expect(body.max_tokens).toBe(8192); // not a Claude model name: the conservative default
    expect(body.stream).toBe(true);
    expect(body.thinking).toBeUndefined();
    expect(body.system).toEqual([{ type: "text", text: "You are SCV.", cache_control: { type: "ephemeral" } }]);
    expect(body.tools).toEqual([
      { name: "bash", description: BASH_TOOL.description, input_schema: BASH_TOOL.parameters },
      {
        name: "read",
        description: READ_TOOL.description,
        input_schema: READ_TOOL.parameters,
        cache_control: { type: "ephemeral" },
      },
    ]);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
    ]);
  });

  it("thinking_budget_tokens turns extended thinking on, with max_tokens above the budget", async () => {
    const { fake, client } = await setup([messagesTextResponse(["ok"])], {
      profile: { model: "claude-sonnet-4-5", thinking_budget_tokens: 40000 },
    });
    await run(client);
    expect(fake.requests[0]!.body).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 40000 },
      max_tokens: 48192,
    });
  });

  it("max_output_tokens, when set, is max_tokens", async () => {
    const { fake, client } = await setup([messagesTextResponse(["ok"])], { profile: { max_output_tokens: 1234 } });
    await run(client);
    expect(fake.requests[0]!.body.max_tokens).toBe(1234);
  });

  it("thinking blocks go back unchanged, in their place, before the text and tool uses of their response", async () => {
    const { fake, client } = await setup([messagesTextResponse(["ok"])]);
    await run(client, { history: TOOL_LOOP, tools: [READ_TOOL] });
    const { messages } = fake.requests[0]!.body;
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        THINKING,
        REDACTED,
        { type: "text", text: "Reading both." },
        { type: "tool_use", id: "toolu_a", name: "read", input: { path: "a.txt" } },
        { type: "tool_use", id: "toolu_b", name: "read", input: { path: "b.txt" } },
      ],
    });
  });

  it("the results of several tool uses share one user message; a failed tool says is_error", async () => {
    const { fake, client } = await setup([messagesTextResponse(["ok"])]);
    await run(client, { history: TOOL_LOOP, tools: [READ_TOOL] });
    const { messages } = fake.requests[0]!.body;
    expect(messages).toHaveLength(3);
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_a", content: "alpha" },
        {
          type: "tool_result",
          tool_use_id: "toolu_b",
          content: "no such file: b.txt",
          is_error: true,
          cache_control: { type: "ephemeral" },
        },
      ],
    });
  });

  it("a call that never returned gets an is_error result before the next prompt, in the same user message", async () => {
    const history: HistoryItem[] = [
      { kind: "user", content: "go" },
      { kind: "assistant", content: "", calls: [{ call_id: "toolu_x", name: "bash", arguments: { command: "ls" } }] },
      { kind: "user", content: "never mind" },
    ];
    const { fake, client } = await setup([messagesTextResponse(["ok"])]);
    await run(client, { history });
    const { messages } = fake.requests[0]!.body;
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_x", name: "bash", input: { command: "ls" } }],
    });
    expect(messages[2].content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_x", is_error: true });
    expect(messages[2].content[1]).toMatchObject({ type: "text", text: "never mind" });
  });

  it("stored blocks that no longer match their item still put thinking first", async () => {
    const history: HistoryItem[] = [
      { kind: "user", content: "q" },
      {
        kind: "assistant",
        content: "changed text",
        calls: [],
        replay: { blocks: [THINKING, { type: "text", length: 3 }] },
      },
      { kind: "user", content: "next" },
    ];
    const { fake, client } = await setup([messagesTextResponse(["ok"])]);
    await run(client, { history });
    expect(fake.requests[0]!.body.messages[1].content).toEqual([THINKING, { type: "text", text: "changed text" }]);
  });

  it("cache breakpoints: tools, system and the two latest user messages, four in all, never on assistant blocks", async () => {
    const history: HistoryItem[] = [...TOOL_LOOP, { kind: "assistant", content: "a is alpha.", calls: [] }, {
      kind: "user",
      content: "and c.txt?",
    }];
    const { fake, client } = await setup([messagesTextResponse(["ok"])]);
    await run(client, { history, tools: [READ_TOOL, BASH_TOOL] });
    const raw = fake.requests[0]!.rawBody;
    expect(raw.match(/"cache_control"/g)).toHaveLength(4);
    const { messages } = fake.requests[0]!.body;
    const marked = messages.flatMap((
      message: { role: string; content: Array<Record<string, unknown>> },
      index: number,
    ) => message.content.filter((block) => block.cache_control).map(() => `${index}:${message.role}`));
    expect(marked).toEqual(["2:user", "4:user"]);
  });

  it("an attached image goes as a base64 image block before the prompt's text", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "scv-messages-image-")));
    try {
      const png = join(dir, "shot.png");
      const bytes = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
      await writeFile(png, bytes);
      const { fake, client } = await setup([messagesTextResponse(["ok"])]);
      await run(client, {
        history: [{ kind: "user", content: "what is this?", images: [{ path: png, mime: "image/png" }] }],
      });
      expect(fake.requests[0]!.body.messages[0].content).toEqual([
        { type: "image", source: { type: "base64", media_type: "image/png", data: bytes.toString("base64") } },
        { type: "text", text: "what is this?", cache_control: { type: "ephemeral" } },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('web.search = "provider" is not sent on the Messages wire, and says so', async () => {
    const warnings: string[] = [];
    const { fake, client } = await setup([messagesTextResponse(["ok"])], {
      hostedWebSearch: true,
      warn: (message) => void warnings.push(message),
    });
    await run(client, { tools: [READ_TOOL] });
    expect(warnings).toEqual([
      'web.search = "provider" has no effect on the Messages wire: hosted web search is not sent',
    ]);
    expect(fake.requests[0]!.body.tools.map((tool: { name: string }) => tool.name)).toEqual(["read"]);
  });
});

describe("max_tokens defaults", () => {
  it("32000 for current Claude models, their own limit for older ones, 8192 for other models", () => {
    expect(defaultMaxOutputTokens("claude-sonnet-4-5")).toBe(32000);
    expect(defaultMaxOutputTokens("claude-opus-4-1-20250805")).toBe(32000);
    expect(defaultMaxOutputTokens("anthropic/claude-haiku-4-5")).toBe(32000);
    expect(defaultMaxOutputTokens("claude-3-7-sonnet-latest")).toBe(32000);
    expect(defaultMaxOutputTokens("claude-3-5-haiku-20241022")).toBe(8192);
    expect(defaultMaxOutputTokens("claude-3-opus-20240229")).toBe(4096);
    expect(defaultMaxOutputTokens("glm-4.6")).toBe(8192);
  });

  it("a thinking budget raises the default to leave the answer room; a configured value is kept", () => {
    expect(maxOutputTokens("claude-sonnet-4-5", undefined, 4096)).toBe(32000);
    expect(maxOutputTokens("claude-sonnet-4-5", undefined, 30000)).toBe(38192);
    expect(maxOutputTokens("claude-sonnet-4-5", 64000, 30000)).toBe(64000);
  });
});
