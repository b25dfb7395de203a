// The protocol client that chat, exec and acp share: the in-process engine, the session controller (turn state and
// approval questions), the "always for this session" approval memory, session options (with the offline replay
// provider), and the rendering of events as rows.
export { alwaysScope, ApprovalMemory, approvalKey } from "./approval_memory.ts";
export {
  SessionController,
  type ControllerHooks,
  type PendingApproval,
  type TurnState,
} from "./controller.ts";
export { EngineClient, EngineError, listStoredSessions, NO_SESSION_TO_CONTINUE, openEngine, type ClientEvent, type SessionRequest } from "./engine.ts";
export { imageAttachment } from "./image_attachment.ts";
export { parseReplayScript, type ReplayScript } from "./replay.ts";
export {
  fakeResponsesPath,
  prepareOptions,
  startReplaySession,
  type ClientFlags,
  type PreparedOptions,
} from "./session_options.ts";
export {
  colorEnabled,
  createStyle,
  displayWidth,
  rowsFor,
  splitAtWidth,
  stripControls,
  tailAtWidth,
  truncateText,
  wrapPlain,
  type Paint,
  type Style,
} from "./style.ts";
export { outputText, summarizeArguments } from "./tool_display.ts";
export { formatUsage, Transcript } from "./transcript.ts";
export { revealControls } from "./approval_view.ts";
