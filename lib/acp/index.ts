// The Agent Client Protocol agent (`scv acp`): editors such as Zed drive scv's engine over ACP v1, as chat drives
// it over scv's own protocol.
export { agentCapabilities, DEFAULT_FEATURES, initializeResponse, serveAcp, type AcpFeatures } from "./agent.ts";
export { proposedDiff, toolKind, toolTitle } from "./tool_calls.ts";
