// The protocol client that chat, exec and acp share: the in-process engine, the session controller (turn state and
// approval questions), session options (with the offline replay provider), and the rendering of events as rows.
// What runs and what asks is the engine's decision (lib/policy); a client only shows questions and sends answers.
export { type ControllerHooks, type PendingApproval, SessionController, type TurnState } from "./controller.ts";
export {
  type ClientEvent,
  EngineClient,
  EngineError,
  listStoredSessions,
  NO_SESSION_TO_CONTINUE,
  openEngine,
  type SessionRequest,
} from "./engine.ts";
export { imageAttachment } from "./image_attachment.ts";
export { formatDelay, formatElapsed, formatTokens, retryText } from "./progress_text.ts";
export { parseReplayScript, type ReplayScript } from "./replay.ts";
export {
  type ClientFlags,
  fakeResponsesPath,
  type PreparedOptions,
  prepareOptions,
  startReplaySession,
} from "./session_options.ts";
export {
  colorEnabled,
  createStyle,
  displayWidth,
  type Paint,
  rowsFor,
  splitAtWidth,
  stripControls,
  type Style,
  tailAtWidth,
  truncateText,
  wrapPlain,
} from "./style.ts";
export { outputText, summarizeArguments } from "./tool_display.ts";
export { formatUsage, Transcript } from "./transcript.ts";
export { alwaysScope, keepScope, rememberedText, revealControls } from "./approval_view.ts";
