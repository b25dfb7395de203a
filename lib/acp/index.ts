// The Agent Client Protocol agent (`scv acp`): editors such as Zed drive scv's engine over ACP v1, as chat drives
// it over scv's own protocol.
export { agentCapabilities, DEFAULT_FEATURES, initializeResponse, serveAcp, type AcpFeatures } from "./agent.ts";
export { PERMISSION_OPTIONS } from "./session.ts";
export { turnOutcome, type TurnOutcome } from "./stop_reason.ts";
export { proposedDiff, toolKind, toolTitle } from "./tool_calls.ts";
