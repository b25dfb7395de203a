// The code-mode host protocol, version 1 (host spec §3): client messages as strict schemas,
// host messages as builders that emit exactly the listed fields in wire order.
import type { ContentItem } from "../sandbox/index.ts";
import {
  array,
  i32,
  i64,
  identifier,
  type Infer,
  json,
  object,
  oneOf,
  optional,
  string,
  tagged,
  u32,
  u64,
  usize,
} from "./schema.ts";

export const PROTOCOL_VERSION = 1;

export const SUPPORTED_CAPABILITIES: ReadonlySet<string> = new Set([
  "bounded-output-v1",
  "delegate-capacity-4096",
  "session-cell-execution-resource-limits",
  "tool-catalog-revision-v1",
  "yield-observation",
]);
export const LARGE_DELEGATE_CAPACITY = "delegate-capacity-4096";

const toolDefinition = object({
  name: string,
  tool_name: object({ name: string, namespace: optional(string) }),
  description: string,
  kind: oneOf("function", "freeform"),
  input_schema: optional(json),
  output_schema: optional(json),
});
export type WireToolDefinition = Infer<typeof toolDefinition>;

const hostRequest = tagged("method", {
  "session/open": {
    sessionId: identifier,
    cellExecutionLimits: optional(object({ maxYieldTimeMs: optional(u64), maxHeapSizeBytes: optional(u64) })),
    outputTruncation: optional(oneOf("client", "server")),
  },
  "session/execute": {
    sessionId: identifier,
    request: object({
      catalog_revision: optional(u64),
      tool_call_id: string,
      enabled_tools: array(toolDefinition),
      source: string,
      yield_time_ms: optional(u64),
      max_output_tokens: optional(i32),
    }),
  },
  "session/wait": {
    sessionId: identifier,
    request: object({ cell_id: string, yield_time_ms: u64 }),
    maxOutputTokens: optional(usize),
  },
  "session/terminate": { sessionId: identifier, cellId: string, maxOutputTokens: optional(usize) },
  "session/shutdown": { sessionId: identifier },
});
export type HostRequest = Infer<typeof hostRequest>;

const delegateResult = tagged("status", {
  ok: {
    value: tagged("type", {
      "tool/result": { result: json },
      "notification/delivered": {},
    }),
  },
  error: { message: string },
});
export type DelegateResult = Infer<typeof delegateResult>;

export const clientMessage = tagged("type", {
  "connection/hello": {
    supportedVersions: array(u32),
    requiredCapabilities: array(identifier),
    optionalCapabilities: array(identifier),
  },
  "operation/request": { id: i64, request: hostRequest },
  "operation/cancel": { id: i64 },
  "operation/yield": { id: i64 },
  "delegate/response": { id: i64, result: delegateResult },
});
export type ClientMessage = Infer<typeof clientMessage>;
export type ClientHello = Extract<ClientMessage, { type: "connection/hello" }>;

/** A bigint id as an exact JSON integer, whatever its size. */
export function wireId(id: bigint): unknown {
  return rawJSON(id.toString());
}

// JSON.rawJSON (Node ≥ 21) is not yet in TypeScript's lib.
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

export type WireResult = { status: "ok"; value: unknown } | { status: "error"; message: string };

export const ok = (value: unknown): WireResult => ({ status: "ok", value });
export const err = (message: string): WireResult => ({ status: "error", message });

export function operationResponse(id: bigint, result: WireResult): unknown {
  return { type: "operation/response", id: wireId(id), result };
}

export function initialResponse(id: bigint, result: WireResult): unknown {
  return { type: "execute/initialResponse", id: wireId(id), result };
}

export type RuntimeResponse =
  | { Yielded: { cell_id: string; content_items: ContentItem[]; code_mode_host_duration_ns: number } }
  | {
    Result: {
      cell_id: string;
      content_items: ContentItem[];
      error_text: string | null;
      result_buffered_for_ns: number;
      code_mode_host_duration_ns: number;
    };
  }
  | { Terminated: { cell_id: string; content_items: ContentItem[]; code_mode_host_duration_ns: number } };
