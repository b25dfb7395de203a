// The Agent Client Protocol agent (`scv acp`): editors such as Zed drive scv's engine over ACP v1, as chat drives
// it over scv's own protocol.
export { type AcpFeatures, agentCapabilities, DEFAULT_FEATURES, initializeResponse, serveAcp } from "./agent.ts";
export { proposedDiff, toolKind, toolTitle } from "./tool_calls.ts";
