// One client connection (spec §2, §5.1, §6.1): framing errors, the handshake, and sequential dispatch of
// client messages to the connection's single session.
import type { NdjsonItem } from "../codec/index.ts";
import { VERSION } from "../version.ts";
import type { Logger } from "../util/log.ts";
import { isInside } from "../util/path.ts";
import {
  type ClientMessage,
  type ErrorCode,
  events,
  MESSAGES,
  parseClientMessage,
  PROTOCOL_VERSION,
} from "../protocol/index.ts";
import type { Rejection, Session } from "./session.ts";
import type { ServerOptions } from "./session_start.ts";
import { type EventWriter, FrameLimitError } from "./writer.ts";

export const DEFAULT_CLIENT_FRAME_BYTES = 1_048_576;
// More than the fixed part of any event that echoes a request id, other than the prompt-bearing queue replies
// (checked exactly by the session) and turn events with model or tool text (refused as response_limit).
const REPLY_OVERHEAD_BYTES = 1024;

export type Flow = "continue" | "stop";

export class Connection {
  #writer: EventWriter;
  #options: ServerOptions;
  #log: Logger;
  #initialized = false;
  #session: Session | undefined;

  constructor(writer: EventWriter, options: ServerOptions, log: Logger) {
    this.#writer = writer;
    this.#options = options;
    this.#log = log;
  }

  get session(): Session | undefined {
    return this.#session;
  }

  clientFrameLimit(): number {
    return this.#session?.parts.config.protocol.max_client_frame_bytes ?? DEFAULT_CLIENT_FRAME_BYTES;
  }

  async handle(item: NdjsonItem): Promise<Flow> {
    if (!item.ok) {
      switch (item.error.kind) {
        case "empty":
          return this.#reject(undefined, "invalid_json", MESSAGES.emptyFrame);
        case "too_large":
          return this.#reject(undefined, "invalid_request", MESSAGES.frameTooLarge);
        case "invalid_json":
          return this.#reject(undefined, "invalid_json", MESSAGES.invalidJsonPrefix + item.error.message);
      }
    }
    const parsed = parseClientMessage(item.value);
    if (!parsed.ok) return this.#reject(undefined, "invalid_json", MESSAGES.invalidJsonPrefix + parsed.detail);
    const requestId = parsed.message.request_id;
    // Every reply and turn event echoes the request id: one too large for any event is refused up front.
    if (!this.#writer.fits({ request_id: requestId }, REPLY_OVERHEAD_BYTES)) {
      return this.#reject(undefined, "invalid_request", MESSAGES.serverFrameTooLarge);
    }
    try {
      return await this.#dispatch(parsed.message);
    } catch (error) {
      if (error instanceof FrameLimitError) return this.#reject(requestId, "invalid_request", error.message);
      this.#log.error(`handle ${parsed.message.type}: ${error instanceof Error ? error.stack : String(error)}`);
      return this.#reject(requestId, "internal_error", error instanceof Error ? error.message : String(error));
    }
  }

  async shutdown(): Promise<void> {
    await this.#session?.shutdown();
  }

  async #reject(requestId: string | undefined, code: ErrorCode, message: string): Promise<Flow> {
    const error = events.error(requestId, code, message);
    // An error must always get through: without its (optional) request id if that is what makes it too large.
    await this.#writer.control(
      this.#writer.fits(error) ? error : events.error(undefined, code, message.slice(0, 1024)),
    );
    return "continue";
  }

  async #answer(requestId: string, rejection: Rejection | undefined): Promise<Flow> {
    if (rejection) return this.#reject(requestId, rejection.code, rejection.message);
    return "continue";
  }

  async #dispatch(message: ClientMessage): Promise<Flow> {
    const id = message.request_id;
    if (message.type === "initialize") {
      if (this.#initialized) return this.#reject(id, "invalid_request", MESSAGES.alreadyInitialized);
      if (message.protocol_version !== PROTOCOL_VERSION) {
        await this.#writer.control(events.error(id, "version_mismatch", MESSAGES.versionMismatch));
        return "stop";
      }
      this.#initialized = true;
      await this.#writer.control(events.initialized(id, VERSION));
      return "continue";
    }
    if (!this.#initialized) return this.#reject(id, "not_initialized", MESSAGES.notInitialized);
    switch (message.type) {
      case "session.attach":
        return this.#reject(id, "unsupported", MESSAGES.attachUnsupported);
      case "daemon.control":
        return this.#reject(id, "unsupported", MESSAGES.daemonUnsupported);
      case "session.start":
        return this.#start(message);
      case "session.resume":
        return this.#start(message);
      case "session.list":
      case "session.fork":
      case "session.delete":
        return this.#stored(message);
      default:
        break;
    }
    const session = this.#session;
    if (!session) return this.#reject(id, "session_not_found", MESSAGES.startSessionFirst);
    if (message.session_id !== session.id) return this.#reject(id, "session_not_found", MESSAGES.sessionMismatch);
    switch (message.type) {
      case "turn.start":
        return this.#answer(id, await session.turnStart(id, message.prompt, message.attachments, message.command));
      case "queue.update":
        return this.#answer(id, await session.queueUpdate(id, message.queue_id, message.revision, message.prompt));
      case "queue.move":
        return this.#answer(
          id,
          await session.queueMove(id, message.queue_id, message.revision, message.before_queue_id),
        );
      case "queue.remove":
        return this.#answer(id, await session.queueRemove(id, message.queue_id, message.revision));
      case "session.pause":
        await session.pause(id, message.paused);
        return "continue";
      case "turn.cancel":
        return this.#answer(id, session.cancel(message.turn_id));
      case "approval.resolve":
        return this.#answer(id, await session.resolveApproval(message.approval_id, message.approved, message.remember));
      case "session.clear":
        return this.#answer(id, await session.clear(id));
      case "session.configure":
        return this.#answer(id, await session.configure(id, message.approval_policy, message.model));
      case "session.undo":
        return this.#answer(id, await session.undo(id, message.force ?? false));
      case "session.rewind":
        return this.#answer(id, await session.rewind(id, message.turn_id, message.restore, message.force ?? false));
      case "session.compact":
        return this.#answer(id, session.compact(id, message.focus));
      case "session.usage":
        await session.usage(id);
        return "continue";
      case "session.trust":
        return this.#answer(id, await session.trust(id, message.trust_level));
    }
  }

  /** `session.start`, or `session.resume` of a stored session (docs/sessions.md): the same steps and replies. */
  async #start(message: Extract<ClientMessage, { type: "session.start" | "session.resume" }>): Promise<Flow> {
    const id = message.request_id;
    if (this.#session) return this.#reject(id, "invalid_request", MESSAGES.alreadyHasSession);
    // The session's modules (config, provider, tools, agent) load on first use, keeping the idle server small.
    const [{ Session }, { prepareSession }, stored] = await Promise.all([
      import("./session.ts"),
      import("./session_start.ts"),
      import("./stored_sessions.ts"),
    ]);
    let resumed;
    let request = message.type === "session.start" ? message : undefined;
    if (message.type === "session.resume") {
      try {
        resumed = stored.loadStored(this.#options, message.session_id);
      } catch (error) {
        const code = error instanceof stored.SessionNotFoundError ? "session_not_found" : "invalid_request";
        return this.#reject(id, code, error instanceof Error ? error.message : String(error));
      }
      // The stored workspace, model and profile, unless this request or the command line names others.
      const { meta } = resumed;
      const provider = message.provider ?? this.#options.provider ?? meta.profile;
      request = {
        type: "session.start",
        request_id: id,
        cwd: meta.workspace,
        model: message.model ?? this.#options.model ?? meta.model,
        ...(provider === undefined ? {} : { provider }),
        ...(message.base_url === undefined ? {} : { base_url: message.base_url }),
        ...(message.no_tools === undefined ? {} : { no_tools: message.no_tools }),
        // A folder outside the stored workspace (resuming from elsewhere) leaves the workspace as the working folder.
        ...(message.working_folder !== undefined && isInside(meta.workspace, message.working_folder)
          ? { working_folder: message.working_folder }
          : {}),
      };
    }
    let parts;
    try {
      // Setup warnings (skills, provider configuration) honour SCV_LOG through the server logger.
      parts = await prepareSession(request!, {
        ...this.#options,
        warn: this.#options.warn ?? this.#log.warn,
        log: this.#log,
      });
    } catch (error) {
      return this.#reject(id, "invalid_request", error instanceof Error ? error.message : String(error));
    }
    const session = new Session(parts, this.#writer, this.#log, resumed);
    this.#session = session;
    const { config, workspace } = parts;
    this.#writer.setFrameLimit(config.protocol.max_server_frame_bytes);
    await this.#writer.control(
      events.sessionStarted({
        request_id: id,
        session_id: session.id,
        cwd: workspace,
        model: config.provider.model,
        context_max_tokens: config.context.max_tokens,
        max_server_frame_bytes: config.protocol.max_server_frame_bytes,
        max_transcript_bytes: config.tui.max_transcript_bytes,
        max_transcript_items: config.tui.max_transcript_items,
        max_prompt_history_bytes: config.tui.max_prompt_history_bytes,
        max_prompt_history_items: config.tui.max_prompt_history_items,
        context_window: parts.contextWindow,
        working_folder: parts.workingFolder,
        instructions: parts.projectInstructions.files,
        commands: parts.commands.map((command) => ({
          name: command.name,
          ...(command.description === undefined ? {} : { description: command.description }),
          ...(command.argumentHint === undefined ? {} : { argument_hint: command.argumentHint }),
          origin: command.origin,
          ...(command.overrides ? { overrides: true } : {}),
        })),
        hooks: session.hooks.listed,
        workspace_trust: session.hooks.workspaceTrust,
        policy: session.policyInForce(),
      }),
    );
    if (resumed) {
      const budget = Math.floor(config.protocol.max_server_frame_bytes / 2);
      const replay = stored.compactReplay(resumed.turns, budget);
      await this.#writer.control(events.sessionReplay(id, session.id, { ...replay, warnings: resumed.warnings }));
    }
    await session.writeSnapshot();
    session.startMcpServers();
    session.hooks.start(resumed ? "resume" : "startup");
    return "continue";
  }

  /** `session.list`, `session.fork`, `session.delete`: stored sessions, with or without a session of our own. */
  async #stored(
    message: Extract<ClientMessage, { type: "session.list" | "session.fork" | "session.delete" }>,
  ): Promise<Flow> {
    const id = message.request_id;
    const stored = await import("./stored_sessions.ts");
    try {
      switch (message.type) {
        case "session.list": {
          const all = await stored.listStored(this.#options, message.cwd, message.all ?? false);
          let shown = message.limit === undefined ? all : all.slice(0, message.limit);
          // The newest that fit in one frame; the rest are counted.
          while (shown.length > 0 && !this.#writer.fits(events.sessionsListed(id, shown, all.length), 64)) {
            shown = shown.slice(0, Math.floor(shown.length / 2));
          }
          await this.#writer.control(events.sessionsListed(id, shown, all.length - shown.length));
          return "continue";
        }
        case "session.fork": {
          const forked = stored.forkStored(this.#options, message.session_id);
          await this.#writer.control(events.sessionForked(id, forked, message.session_id));
          return "continue";
        }
        case "session.delete":
          if (message.session_id === this.#session?.id)
            return this.#reject(id, "invalid_request", MESSAGES.deleteActiveSession);
          stored.deleteStored(this.#options, message.session_id);
          await this.#writer.control(events.sessionDeleted(id, message.session_id));
          return "continue";
      }
    } catch (error) {
      const code = error instanceof stored.SessionNotFoundError ? "session_not_found" : "internal_error";
      return this.#reject(id, code, error instanceof Error ? error.message : String(error));
    }
  }
}
