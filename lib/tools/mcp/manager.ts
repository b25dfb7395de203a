// A session's MCP servers: started together when the session starts, awaited (each at most its
// startup_timeout_sec) by the first turn, their tools offered while they run, all stopped with the session.
import type { McpServerConfig } from "../../config/index.ts";
import type { CommandSandbox } from "../../confine/index.ts";
import { raceAbort } from "../../util/abort.ts";
import type { Logger } from "../../util/log.ts";
import { mcpDeclarations } from "./declarations.ts";
import { McpServer, type McpStatus } from "./server.ts";
import { createMcpTool, type McpTool } from "./tool.ts";

export type McpManagerOptions = {
  workspace: string;
  env: Record<string, string | undefined>;
  log: Logger;
  /** Where a server with `sandbox = "<mode>"` runs confined. */
  commandSandbox?: CommandSandbox;
};

export class McpManager {
  #servers: McpServer[];
  #listeners = new Set<(status: McpStatus) => void>();
  #started = false;
  // Tools are rebuilt only when a server's tool list or state changes.
  #cache: { key: string; tools: McpTool[] } | undefined;

  constructor(configs: Record<string, McpServerConfig>, options: McpManagerOptions) {
    const env = { ...options, onStatus: (status: McpStatus) => this.#emit(status) };
    this.#servers = Object.entries(configs)
      .filter(([, config]) => config.enabled)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, config]) => new McpServer(name, config, env));
  }

  get size(): number {
    return this.#servers.length;
  }

  /** Status changes (starting, ready, exited, failed) from now on. */
  onStatus(listener: (status: McpStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts every enabled server in parallel; returns at once. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (const server of this.#servers) void server.start();
  }

  /**
   * Waits for the servers still starting (each bounded by its own startup_timeout_sec), or for `signal`. Starts
   * them first if nobody has yet: a turn may begin before the session's deferred start has run.
   */
  async ready(signal?: AbortSignal): Promise<void> {
    this.start();
    const all = Promise.all(this.#servers.map((server) => server.settled())).then(() => undefined);
    await (signal === undefined ? all : raceAbort(all, signal, () => undefined));
  }

  statuses(): McpStatus[] {
    return this.#servers.map((server) => server.status());
  }

  /** The tools of the running servers (and of an exited one that the next call restarts), sorted by name. */
  tools(): McpTool[] {
    const key = this.#servers.map((server) => `${server.name}:${server.state}:${server.tools.length}`).join(",");
    if (this.#cache?.key === key) return this.#cache.tools;
    const seen = new Set<string>();
    const tools: McpTool[] = [];
    for (const server of this.#servers) {
      for (const info of server.tools) {
        const tool = createMcpTool(server, info);
        if (seen.has(tool.name)) continue; // two server tools that sanitise to one name: the first wins
        seen.add(tool.name);
        tools.push(tool);
      }
    }
    this.#cache = { key, tools };
    return tools;
  }

  /** The `exec` description's declarations of every MCP tool. */
  declarations(): string {
    return mcpDeclarations(this.tools());
  }

  async shutdown(): Promise<void> {
    this.#listeners.clear();
    await Promise.all(this.#servers.map((server) => server.close()));
  }

  #emit(status: McpStatus): void {
    for (const listener of this.#listeners) {
      try {
        listener(status);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
