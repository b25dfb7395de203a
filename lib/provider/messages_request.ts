// The Anthropic Messages request body: the system prompt and tools, the paired history as user and assistant
// messages (tool results in user messages), thinking blocks sent back unchanged and in place, and prompt-cache
// breakpoints so a long session re-reads its prefix from the cache.
import { userContent } from "./images.ts";
import { type PairedItem, pairHistory } from "./pairing.ts";
import { isJsonObject } from "./stream_data.ts";
import type { MessagesReplayBlock, ProviderRequest, ToolCallRecord } from "./types.ts";

export type MessagesBodyOptions = {
  /** `max_tokens`, which the API requires. */
  maxTokens: number;
  /** Extended thinking's `budget_tokens`; absent leaves thinking off. */
  thinkingBudget?: number;
};

type Block = Record<string, unknown>;
type Message = { role: "user" | "assistant"; content: Block[] };
type AssistantItem = Extract<PairedItem, { kind: "assistant" }>;

const CACHE_CONTROL = { type: "ephemeral" } as const;
/**
 * The API allows four breakpoints: the tools, the system prompt, and the two latest user messages: the newest
 * writes the conversation so far, the one before it is where the previous request wrote, so it reads.
 */
const MESSAGE_BREAKPOINTS = 2;
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export function buildMessagesBody(request: ProviderRequest, options: MessagesBodyOptions): Record<string, unknown> {
  const messages: Message[] = [];
  // Consecutive items of one role become one message: the results of several tool uses, or results and the next
  // prompt (tool results first, as the API requires).
  const add = (role: Message["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const item of pairHistory(request.history)) {
    if (item.kind === "user") add("user", userBlocks(item));
    else if (item.kind === "assistant") add("assistant", assistantBlocks(item));
    else add("user", [toolResult(item)]);
  }
  const userMessages = messages.filter((message) => message.role === "user");
  for (const message of userMessages.slice(-MESSAGE_BREAKPOINTS)) {
    message.content[message.content.length - 1] = { ...message.content.at(-1), cache_control: CACHE_CONTROL };
  }

  const body: Record<string, unknown> = { model: request.model, max_tokens: options.maxTokens };
  if (request.instructions !== "") {
    body.system = [{ type: "text", text: request.instructions, cache_control: CACHE_CONTROL }];
  }
  body.messages = messages;
  const tools: Block[] = [...request.tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
  if (tools.length > 0) {
    tools[tools.length - 1] = { ...tools.at(-1), cache_control: CACHE_CONTROL };
    body.tools = tools;
  }
  if (options.thinkingBudget !== undefined) body.thinking = { type: "enabled", budget_tokens: options.thinkingBudget };
  body.stream = true;
  return body;
}

/** Images first (as Anthropic advises), then the text with a note for each image not shown. */
function userBlocks(item: Extract<PairedItem, { kind: "user" }>): Block[] {
  const { text, urls } = userContent(item);
  const blocks: Block[] = [];
  for (const url of urls) {
    const match = DATA_URL.exec(url);
    if (match) blocks.push({ type: "image", source: { type: "base64", media_type: match[1], data: match[2] } });
  }
  // The API refuses an empty text block.
  if (text !== "") blocks.push({ type: "text", text });
  return blocks;
}

function toolResult(item: Extract<PairedItem, { kind: "tool_result" }>): Block {
  const block: Block = { type: "tool_result", tool_use_id: item.call_id };
  if (item.output !== "") block.content = item.output;
  if (!item.success) block.is_error = true;
  return block;
}

function toolUse(call: ToolCallRecord, synthetic: boolean): Block {
  // The API takes an object; arguments another wire stored otherwise go back empty.
  const input = !synthetic && isJsonObject(call.arguments) ? call.arguments : {};
  return { type: "tool_use", id: call.call_id, name: call.name, input };
}

/**
 * The assistant message of one response: its content blocks in their order when the response had thinking (the
 * thinking blocks unchanged), else its text, then its tool uses.
 */
function assistantBlocks(item: AssistantItem): Block[] {
  const plain: Block[] = [
    ...(item.content === "" ? [] : [{ type: "text", text: item.content }]),
    ...item.calls.map((call) => toolUse(call, item.synthetic)),
  ];
  const replay = item.replay?.blocks;
  if (!replay || item.synthetic) return plain;
  // When the stored blocks no longer match the item, thinking still leads, as the API requires.
  return inOrder(replay, item) ?? [...replay.filter(isThinking), ...plain];
}

function isThinking(block: MessagesReplayBlock): boolean {
  return block.type === "thinking" || block.type === "redacted_thinking";
}

function inOrder(replay: MessagesReplayBlock[], item: AssistantItem): Block[] | undefined {
  const blocks: Block[] = [];
  const calls = new Map(item.calls.map((call) => [call.call_id, call]));
  let offset = 0;
  for (const block of replay) {
    if (block.type === "text") {
      const text = item.content.slice(offset, offset + block.length);
      offset += block.length;
      if (text !== "") blocks.push({ type: "text", text });
    } else if (block.type === "tool_use") {
      const call = calls.get(block.id);
      if (!call) return undefined;
      calls.delete(block.id);
      blocks.push(toolUse(call, false));
    } else {
      blocks.push({ ...block });
    }
  }
  return offset === item.content.length && calls.size === 0 ? blocks : undefined;
}
