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

// The body's shape, written out so that a test can check it against the official SDK's request types.
type CacheControl = { type: "ephemeral" };
type TextBlock = { type: "text"; text: string; cache_control?: CacheControl };
type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";
type ImageBlock = {
  type: "image";
  source: { type: "base64"; media_type: ImageMediaType; data: string };
  cache_control?: CacheControl;
};
type ToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content?: string;
  is_error?: boolean;
  cache_control?: CacheControl;
};
type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
type ThinkingBlock = { type: "thinking"; thinking: string; signature: string };
type RedactedThinkingBlock = { type: "redacted_thinking"; data: string };
type UserBlock = TextBlock | ImageBlock | ToolResultBlock;
type AssistantBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock;
type Message = { role: "user"; content: UserBlock[] } | { role: "assistant"; content: AssistantBlock[] };
type ToolDefinition = {
  name: string;
  description: string;
  input_schema: { type: "object"; [key: string]: unknown };
  cache_control?: CacheControl;
};

export type MessagesRequestBody = {
  model: string;
  max_tokens: number;
  system?: TextBlock[];
  messages: Message[];
  tools?: ToolDefinition[];
  thinking?: { type: "enabled"; budget_tokens: number };
  stream: true;
};

type AssistantItem = Extract<PairedItem, { kind: "assistant" }>;

const CACHE_CONTROL: CacheControl = { type: "ephemeral" };
const IMAGE_MEDIA_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/**
 * The API allows four breakpoints: the tools, the system prompt, and the two latest user messages: the newest
 * writes the conversation so far, the one before it is where the previous request wrote, so it reads.
 */
const MESSAGE_BREAKPOINTS = 2;
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export function buildMessagesBody(request: ProviderRequest, options: MessagesBodyOptions): MessagesRequestBody {
  const messages: Message[] = [];
  // Consecutive items of one role become one message: the results of several tool uses, or results and the next
  // prompt (tool results first, as the API requires).
  const addUser = (blocks: UserBlock[]) => {
    const last = messages.at(-1);
    if (last?.role === "user") last.content.push(...blocks);
    else if (blocks.length > 0) messages.push({ role: "user", content: blocks });
  };
  const addAssistant = (blocks: AssistantBlock[]) => {
    const last = messages.at(-1);
    if (last?.role === "assistant") last.content.push(...blocks);
    else if (blocks.length > 0) messages.push({ role: "assistant", content: blocks });
  };
  for (const item of pairHistory(request.history)) {
    if (item.kind === "user") addUser(userBlocks(item));
    else if (item.kind === "assistant") addAssistant(assistantBlocks(item));
    else addUser([toolResult(item)]);
  }
  const userMessages = messages.filter((message) => message.role === "user");
  for (const message of userMessages.slice(-MESSAGE_BREAKPOINTS)) {
    const last = message.content.length - 1;
    message.content[last] = { ...message.content[last]!, cache_control: CACHE_CONTROL };
  }

  const system: TextBlock[] = request.instructions === ""
    ? []
    : [{ type: "text", text: request.instructions, cache_control: CACHE_CONTROL }];
  const body: MessagesRequestBody = {
    model: request.model,
    max_tokens: options.maxTokens,
    ...(system.length > 0 ? { system } : {}),
    messages,
    stream: true,
  };
  const tools: ToolDefinition[] = [...request.tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters as ToolDefinition["input_schema"],
    }));
  if (tools.length > 0) {
    tools[tools.length - 1] = { ...tools.at(-1)!, cache_control: CACHE_CONTROL };
    body.tools = tools;
  }
  if (options.thinkingBudget !== undefined) body.thinking = { type: "enabled", budget_tokens: options.thinkingBudget };
  return body;
}

/** Images first (as Anthropic advises), then the text with a note for each image not shown. */
function userBlocks(item: Extract<PairedItem, { kind: "user" }>): UserBlock[] {
  const { text, urls } = userContent(item);
  const blocks: UserBlock[] = [];
  for (const url of urls) {
    const match = DATA_URL.exec(url);
    const mediaType = match?.[1];
    if (match && mediaType !== undefined && IMAGE_MEDIA_TYPES.includes(mediaType)) {
      const source = { type: "base64" as const, media_type: mediaType as ImageMediaType, data: match[2]! };
      blocks.push({ type: "image", source });
    }
  }
  // The API refuses an empty text block.
  if (text !== "") blocks.push({ type: "text", text });
  return blocks;
}

function toolResult(item: Extract<PairedItem, { kind: "tool_result" }>): ToolResultBlock {
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: item.call_id };
  if (item.output !== "") block.content = item.output;
  if (!item.success) block.is_error = true;
  return block;
}

function toolUse(call: ToolCallRecord, synthetic: boolean): ToolUseBlock {
  // The API takes an object; arguments another wire stored otherwise go back empty.
  const input = !synthetic && isJsonObject(call.arguments) ? call.arguments : {};
  return { type: "tool_use", id: call.call_id, name: call.name, input };
}

/**
 * The assistant message of one response: its content blocks in their order when the response had thinking (the
 * thinking blocks unchanged), else its text, then its tool uses.
 */
function assistantBlocks(item: AssistantItem): AssistantBlock[] {
  const plain: AssistantBlock[] = [
    ...(item.content === "" ? [] : [{ type: "text" as const, text: item.content }]),
    ...item.calls.map((call) => toolUse(call, item.synthetic)),
  ];
  const replay = item.replay?.blocks;
  if (!replay || item.synthetic) return plain;
  // When the stored blocks no longer match the item, thinking still leads, as the API requires.
  return inOrder(replay, item) ?? [...replay.flatMap(thinkingBlock), ...plain];
}

function thinkingBlock(block: MessagesReplayBlock): Array<ThinkingBlock | RedactedThinkingBlock> {
  if (block.type === "thinking") return [{ type: "thinking", thinking: block.thinking, signature: block.signature }];
  if (block.type === "redacted_thinking") return [{ type: "redacted_thinking", data: block.data }];
  return [];
}

function inOrder(replay: MessagesReplayBlock[], item: AssistantItem): AssistantBlock[] | undefined {
  const blocks: AssistantBlock[] = [];
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
      blocks.push(...thinkingBlock(block));
    }
  }
  return offset === item.content.length && calls.size === 0 ? blocks : undefined;
}
