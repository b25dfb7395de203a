// One configured MCP server: its transport (a stdio child or streamable HTTP), the SDK client over it, its tool
// list, and its life: starting (bounded by startup_timeout_sec), ready, exited (restarted once on the next call),
// failed. The SDK loads lazily, so sessions without MCP servers never pay for it.
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../../config/index.ts";
import type { CommandSandbox } from "../../confine/index.ts";
import type { Logger } from "../../util/log.ts";
import { VERSION } from "../../version.ts";

export type McpServerState = "starting" | "ready" | "exited" | "failed";

export type McpToolInfo = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; title?: string };
};

export type McpStatus = {
  server: string;
  state: McpServerState;
  transport: "stdio" | "http";
  /** The server's own tool names, as it listed them (those offered after enabled/disabled_tools). */
  tools: string[];
  reason?: string;
};

export type CallOptions = { signal: AbortSignal; onProgress(text: string): void };

export type McpServerEnv = {
  workspace: string;
  /** The scv process's environment: only `bearer_token_env_var` is read from it. */
  env: Record<string, string | undefined>;
  log: Logger;
  onStatus(status: McpStatus): void;
  /** The session's command sandbox: a stdio server with `sandbox = "<mode>"` runs inside it with that mode. */
  commandSandbox?: CommandSandbox;
};

let sdkModule: Promise<typeof import("./sdk.ts")> | undefined;
const sdk = () => (sdkModule ??= import("./sdk.ts"));

const STDERR_TAIL_LINES = 5;
const CLOSE_WAIT_MS = 500;
/** JSON-RPC error code of the SDK's own request timeout. */
const REQUEST_TIMEOUT_CODE = -32001;

export class McpToolError extends Error {
  override name = "McpToolError";
  readonly code: "limit" | "unavailable" | "failed" | "cancelled";
  constructor(code: McpToolError["code"], message: string) {
    super(message);
    this.code = code;
  }
}

export class McpServer {
  readonly name: string;
  readonly config: McpServerConfig;
  #env: McpServerEnv;
  #state: McpServerState = "starting";
  #tools: McpToolInfo[] = [];
  #reason: string | undefined;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #pid: number | undefined;
  #stderrTail: string[] = [];
  #restarted = false;
  #closed = false;
  #starting: Promise<void> | undefined;

  constructor(name: string, config: McpServerConfig, env: McpServerEnv) {
    this.name = name;
    this.config = config;
    this.#env = env;
  }

  get state(): McpServerState {
    return this.#state;
  }

  /** Tools a turn may offer: those of a ready server, or of one that exited and may still be restarted. */
  get tools(): McpToolInfo[] {
    if (this.#state === "ready" || (this.#state === "exited" && !this.#restarted)) return this.#tools;
    return [];
  }

  status(): McpStatus {
    return {
      server: this.name,
      state: this.#state,
      transport: this.config.url === undefined ? "stdio" : "http",
      tools: this.tools.map((tool) => tool.name),
      ...(this.#reason === undefined ? {} : { reason: this.#reason }),
    };
  }

  /** Starts (or restarts) the server; never rejects: a failure becomes state `failed` with a reason. */
  start(): Promise<void> {
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /** Resolves once the server is no longer starting (at most its startup_timeout_sec after start). */
  async settled(): Promise<void> {
    await this.#starting;
  }

  async call(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<unknown> {
    if (this.#state === "exited" && !this.#restarted && !this.#closed) {
      this.#restarted = true;
      this.#env.log.warn(`mcp server ${this.name}: restarting after it exited`);
      await this.start();
    }
    const client = this.#client;
    if (this.#state !== "ready" || client === undefined) {
      throw new McpToolError(
        "unavailable",
        `MCP server ${this.name} is not running${this.#reason ? `: ${this.#reason}` : ""}`,
      );
    }
    const timeoutMs = this.config.tool_timeout_sec * 1000;
    try {
      return await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        timeout: timeoutMs,
        onprogress: (progress) => {
          const total = progress.total === undefined ? "" : `/${progress.total}`;
          options.onProgress(`${progress.progress}${total}${progress.message ? ` ${progress.message}` : ""}`);
        },
      });
    } catch (error) {
      if (options.signal.aborted) throw new McpToolError("cancelled", "tool call cancelled");
      if ((error as { code?: unknown }).code === REQUEST_TIMEOUT_CODE) {
        throw new McpToolError(
          "limit",
          `MCP tool ${tool} of server ${this.name} timed out after ${this.config.tool_timeout_sec} seconds (tool_timeout_sec); the call was cancelled`,
        );
      }
      throw new McpToolError(
        "failed",
        `MCP server ${this.name}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Stops the server for good: closes the client and kills a stdio child that outlives a short grace period. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#stop();
  }

  async #start(): Promise<void> {
    this.#set("starting", undefined);
    const timeoutSec = this.config.startup_timeout_sec;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(`did not answer initialize and tools/list within ${timeoutSec} seconds (startup_timeout_sec)`),
          ),
        timeoutSec * 1000,
      );
    });
    try {
      await Promise.race([this.#connect(), deadline]);
      clearTimeout(timer);
      if (this.#closed) return;
      this.#set("ready", undefined);
    } catch (error) {
      clearTimeout(timer);
      await this.#stop();
      if (this.#closed) return;
      const tail = this.#stderrTail.at(-1);
      const reason = `${error instanceof Error ? error.message : String(error)}${tail ? ` (stderr: ${tail})` : ""}`;
      this.#env.log.warn(`mcp server ${this.name} failed to start: ${reason}`);
      this.#set("failed", reason);
    }
  }

  async #connect(): Promise<void> {
    const [{ Client }, transport] = await Promise.all([sdk(), this.#makeTransport()]);
    const client = new Client({ name: "scv", version: VERSION });
    this.#client = client;
    this.#transport = transport;
    client.onclose = () => this.#onClose(client);
    await client.connect(transport);
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...(page.tools as McpToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.#tools = tools.filter((tool) => this.#offered(tool.name));
  }

  #offered(tool: string): boolean {
    const { enabled_tools: enabled, disabled_tools: disabled } = this.config;
    if (enabled !== undefined && !enabled.includes(tool)) return false;
    return !disabled.includes(tool);
  }

  async #makeTransport(): Promise<Transport> {
    const config = this.config;
    if (config.url !== undefined) {
      const { StreamableHTTPClientTransport } = await sdk();
      const headers: Record<string, string> = { ...config.http_headers };
      if (config.bearer_token_env_var !== undefined) {
        const token = this.#env.env[config.bearer_token_env_var];
        if (token === undefined || token === "")
          throw new Error(`environment variable ${config.bearer_token_env_var} is not set`);
        headers.Authorization = `Bearer ${token}`;
      }
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers } });
    }
    const { StdioClientTransport } = await sdk();
    const cwd = path.resolve(this.#env.workspace, config.cwd ?? ".");
    let program = { command: config.command!, args: config.args, env: config.env };
    if (config.sandbox !== undefined && config.sandbox !== "danger-full-access") {
      const sandbox = this.#env.commandSandbox;
      await sandbox?.ready();
      const launch = sandbox?.launch({ file: config.command!, args: config.args }, { mode: config.sandbox, cwd });
      if (launch === undefined) {
        throw new Error(
          `sandbox = "${config.sandbox}" is set but no sandbox holds here (${sandbox?.missing ?? "no sandbox"}); ` +
            "remove the setting to run the server as is",
        );
      }
      program = { command: launch.file, args: launch.args, env: { ...config.env, ...launch.env } };
    }
    // The SDK adds only HOME, LOGNAME, PATH, SHELL, TERM and USER of this process: scv's keys never reach the child.
    const transport = new StdioClientTransport({ ...program, cwd, stderr: "pipe" });
    this.#stderrTail = [];
    let pending = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = lines.pop()!.slice(-4096);
      for (const line of lines) {
        const text = line.trimEnd();
        if (text === "") continue;
        this.#env.log.debug(`mcp server ${this.name}: ${text}`);
        this.#stderrTail.push(text.slice(0, 512));
        if (this.#stderrTail.length > STDERR_TAIL_LINES) this.#stderrTail.shift();
      }
    });
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      this.#pid = transport.pid ?? undefined;
    };
    return transport;
  }

  #onClose(client: Client): void {
    if (client !== this.#client || this.#closed || this.#state !== "ready") return;
    this.#client = undefined;
    const reason = this.#restarted
      ? "the server exited again after one restart"
      : "the server exited; it is restarted on the next call";
    this.#env.log.warn(`mcp server ${this.name}: ${reason}`);
    this.#set(this.#restarted ? "failed" : "exited", reason);
  }

  async #stop(): Promise<void> {
    const client = this.#client;
    const transport = this.#transport;
    const pid = this.#pid;
    this.#client = undefined;
    this.#transport = undefined;
    this.#pid = undefined;
    if (client === undefined && transport === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      (client ?? transport)!.close().catch(() => {}),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (pid !== undefined) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  #set(state: McpServerState, reason: string | undefined): void {
    this.#state = state;
    this.#reason = reason;
    this.#env.onStatus(this.status());
  }
}
