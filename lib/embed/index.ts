// Public entry of lib/embed: the in-process engine, the one place a client meets the server: the agent protocol
// server run in this process over an in-memory pair of streams with the same codec, the session options the CLI
// flags make, and the offline replay provider (the demo, --fake-responses).
export {
  EngineClient,
  EngineError,
  listStoredSessions,
  NO_SESSION_TO_CONTINUE,
  openEngine,
  type SessionRequest,
} from "./engine.ts";
export { parseReplayScript, type ReplayScript } from "./replay.ts";
export {
  type ClientFlags,
  fakeResponsesPath,
  type PreparedOptions,
  prepareOptions,
  startReplaySession,
} from "./session_options.ts";
// What a client passes the engine, and the attachment rules turn.start enforces (for clients that take attachments
// in other forms, such as ACP image blocks): the server's, handed on so that no client imports lib/server.
export { ATTACHMENT_MESSAGES, MAX_TURN_ATTACHMENTS, type ServerOptions } from "../server/index.ts";
