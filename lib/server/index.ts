// Public entry of the agent protocol server: the protocol constants and types, and the connection runner
// (over any pair of byte streams: stdio for `scv server --stdio`, in-memory pipes for an embedded client).
export { PROTOCOL_VERSION, MESSAGES, events, parseClientMessage } from "../protocol/index.ts";
export type { ClientMessage, ErrorCode, QueueEntry, ServerEvent, TurnFailureCode, Usage } from "../protocol/index.ts";
export { serveStdio, type ServeResult } from "./stdio.ts";
export type { ServerOptions } from "./session_start.ts";
export { createLogger, silentLogger, type Logger } from "../util/log.ts";
