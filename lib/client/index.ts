// Public entry of lib/client: the protocol client that chat, exec and acp share: the session controller (turn
// state and the approval questions the engine asks, answered in order) and attachments for turn.start. The engine
// it talks to is lib/embed's; how events look is lib/render's. What runs and what asks is the engine's decision
// (lib/policy): a client only shows questions and sends answers.
export { type ControllerHooks, type PendingApproval, SessionController, type TurnState } from "./controller.ts";
export { forceFlag } from "./force_flag.ts";
export { imageAttachment } from "./image_attachment.ts";
