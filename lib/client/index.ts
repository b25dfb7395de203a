// The protocol client that chat and exec share: the in-process engine, the session controller (turn state and
// approval questions), session options (with the offline replay provider), and the rendering of events as rows.
export {
  SessionController,
  type ControllerHooks,
  type PendingApproval,
  type TurnState,
} from "./controller.ts";
export { EngineClient, EngineError, openEngine, type ClientEvent, type SessionRequest } from "./engine.ts";
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
export { formatUsage, Transcript } from "./transcript.ts";
