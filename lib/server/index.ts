// Public entry of the agent protocol server: the protocol constants and types, and the connection runner
// (over any pair of byte streams: stdio for `scv server --stdio`, in-memory pipes for an embedded client).
export { events, MESSAGES, parseClientMessage, PROTOCOL_VERSION } from "../protocol/index.ts";
export type { ClientMessage, ErrorCode, QueueEntry, ServerEvent, TurnFailureCode, Usage } from "../protocol/index.ts";
export { type ServeResult, serveStdio } from "./stdio.ts";
export type { ServerOptions } from "./session_start.ts";
export { createLogger, type Logger, silentLogger } from "../util/log.ts";
// The attachment rules `turn.start` enforces, for clients that take attachments in other forms (ACP image blocks).
export { ATTACHMENT_MESSAGES, MAX_TURN_ATTACHMENTS } from "./attachments.ts";
