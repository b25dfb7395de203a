// The agent protocol (server spec §3–§5), imported by the server and by every client: client messages as one
// validator that also types them, server events as builders and one discriminated `ServerEvent` union.
export {
  type Attachment,
  type ClientMessage,
  clientMessage,
  type ClientMessageType,
  type ClientRequest,
  parseClientMessage,
  type ParseResult,
  type PeerInfo,
  type Remember,
} from "./client.ts";
export {
  type ClientEvent,
  type ErrorCode,
  type EventOf,
  events,
  MESSAGES,
  type PolicyInForce,
  type PolicyRule,
  PROTOCOL_VERSION,
  type QueueEntry,
  type ReplayTurn,
  SERVER_NAME,
  type ServerEvent,
  type ServerEventType,
  type SessionScope,
  type StoredSession,
  type TurnFailureCode,
  type TurnScope,
  type Usage,
  USAGE_FIELDS,
} from "./events.ts";
