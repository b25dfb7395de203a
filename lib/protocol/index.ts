// The agent protocol (server spec §3–§5), imported by the server and by every client: client messages as one
// validator that also types them, server events as builders and one discriminated `ServerEvent` union.
export {
  clientMessage,
  parseClientMessage,
  type Attachment,
  type ClientMessage,
  type ClientMessageType,
  type ClientRequest,
  type ParseResult,
  type PeerInfo,
} from "./client.ts";
export {
  events,
  MESSAGES,
  PROTOCOL_VERSION,
  SERVER_NAME,
  type ErrorCode,
  type EventOf,
  type QueueEntry,
  type ReplayTurn,
  type StoredSession,
  type ServerEvent,
  type ServerEventType,
  type SessionScope,
  type TurnFailureCode,
  type TurnScope,
  type Usage,
} from "./events.ts";
