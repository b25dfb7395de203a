// The code-mode host (host spec): limits, output truncation and the stdio transport. The WebSocket transport is
// loaded lazily by its own path (lib/host/transports/ws.ts) so that stdio mode never loads node:http and ws.
export { limitsFromEnv } from "./limits.ts";
export { serveStdio } from "./transports/stdio.ts";
