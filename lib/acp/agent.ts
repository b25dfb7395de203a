// The ACP agent over one connection (newline-delimited JSON-RPC 2.0): initialize, session/new, session/load,
// session/list, session/prompt, session/cancel, session/close and session/set_mode (the approval policies as
// modes). Each session is an in-process engine session, with the same engine and configuration as `scv server`.
import { realpath, stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  agent,
  type AgentCapabilities,
  type InitializeResponse,
  type McpServer,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { EngineError } from "../embed/index.ts";
import type { ServerOptions } from "../embed/index.ts";
import type { Logger } from "../util/log.ts";
import { VERSION } from "../version.ts";
import { sessionMcpServers } from "./mcp_servers.ts";
import { isMode, MODES, modeState } from "./modes.ts";
import { AcpSession } from "./session.ts";
import { findStored, listSessions, replayUpdates } from "./stored.ts";

export type AcpFeatures = {
  /**
   * Sessions outlive the process (the engine journals them, docs/sessions.md): advertise `loadSession` and
   * `session/list`, and serve them. Off, neither is advertised and both are unknown methods.
   */
  persistentSessions: boolean;
};

export const DEFAULT_FEATURES: AcpFeatures = { persistentSessions: true };

/**
 * What scv offers, and no more: text, resource links (which ACP requires of every agent) and images; MCP servers
 * over stdio (which every agent takes) and streamable HTTP, which scv's MCP client speaks.
 */
export function agentCapabilities(features: AcpFeatures): AgentCapabilities {
  return {
    loadSession: features.persistentSessions,
    promptCapabilities: { image: true, audio: false, embeddedContext: false },
    mcpCapabilities: { http: true, sse: false },
    // Closing frees a session's engine (its tools' processes, its history); listing needs persistence.
    sessionCapabilities: features.persistentSessions ? { close: {}, list: {} } : { close: {} },
  };
}

export function initializeResponse(features: AcpFeatures): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: agentCapabilities(features),
    authMethods: [],
    agentInfo: { name: "scv", title: "scv", version: VERSION },
  };
}

/** `-32602` unless `cwd` is an absolute path to a directory. */
async function checkCwd(cwd: string): Promise<void> {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory()) throw RequestError.invalidParams({ cwd }, `cwd ${cwd} is not a directory`);
}

/** Serves ACP on `input`/`output` until the client closes the connection; then every session's engine stops. */
export async function serveAcp(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  options: ServerOptions,
  log: Logger,
  features: AcpFeatures = DEFAULT_FEATURES,
): Promise<void> {
  const sessions = new Map<string, AcpSession>();
  /** Ids of stored sessions whose session/load is starting their engine. */
  const loading = new Set<string>();
  let closed = false;
  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.invalidParams({ sessionId }, `unknown session ${sessionId}`);
    return session;
  };
  /** Starts an engine session (a new one, or `resume`); the engine's refusal is `-32603` with its reason. */
  const openSession = async (
    client: Parameters<typeof AcpSession.open>[3],
    cwd: string,
    mcpServers: McpServer[],
    resume?: string,
  ): Promise<AcpSession> => {
    const servers = sessionMcpServers(mcpServers);
    const sessionOptions = servers === undefined ? options : { ...options, mcpServers: servers };
    let session: AcpSession;
    try {
      session = await AcpSession.open(
        sessionOptions,
        log,
        resume === undefined ? { cwd } : { cwd, resume },
        client,
      );
    } catch (error) {
      // The engine's reason (a missing credential, a bad configuration file) says what to fix.
      const reason = error instanceof EngineError ? error.message : (error as Error).message;
      throw RequestError.internalError(undefined, `could not start a session: ${reason}`);
    }
    if (closed) {
      await session.close();
      throw RequestError.internalError(undefined, "the connection closed while the session started");
    }
    sessions.set(session.id, session);
    return session;
  };

  const app = agent({ name: "scv" })
    .onRequest(methods.agent.initialize, ({ params }) => {
      log.info(
        `initialize from ${params.clientInfo?.name ?? "an unnamed client"} (protocol ${params.protocolVersion})`,
      );
      return initializeResponse(features);
    })
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      await checkCwd(params.cwd);
      const session = await openSession(client, params.cwd, params.mcpServers ?? []);
      // After the answer, so the client knows the session the update is about.
      setImmediate(() => session.advertiseCommands());
      return { sessionId: session.id, modes: modeState(session.mode) };
    })
    .onRequest(methods.agent.session.setMode, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (!isMode(params.modeId)) {
        const known = MODES.map((mode) => mode.id).join(", ");
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode ${params.modeId} (expected one of ${known})`,
        );
      }
      await session.setMode(params.modeId);
      return {};
    })
    .onRequest(methods.agent.session.prompt, ({ params }) => sessionOf(params.sessionId).prompt(params.prompt))
    .onRequest(methods.agent.session.close, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      sessions.delete(params.sessionId);
      // A running prompt answers `cancelled`; the engine session ends with its processes.
      session.cancel();
      await session.close();
      return {};
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });
  if (features.persistentSessions) {
    app
      .onRequest(methods.agent.session.list, ({ params }) => listSessions(options, log, params.cwd, params.cursor))
      .onRequest(methods.agent.session.load, async ({ params, client }) => {
        await checkCwd(params.cwd);
        await findStored(options, log, params.sessionId, await realpath(params.cwd));
        // One engine per session id: a second load while the first is starting would leave one nobody closes.
        if (sessions.has(params.sessionId) || loading.has(params.sessionId)) {
          throw RequestError.invalidRequest(
            { sessionId: params.sessionId },
            `session ${params.sessionId} is already open on this connection`,
          );
        }
        loading.add(params.sessionId);
        let session: AcpSession;
        try {
          session = await openSession(client, params.cwd, params.mcpServers ?? [], params.sessionId);
        } finally {
          loading.delete(params.sessionId);
        }
        // The journal as the engine resumed it: what the next prompt continues from, sent before the answer.
        await session.replay(replayUpdates(await session.storedTurns, session.cwd));
        setImmediate(() => session.advertiseCommands());
        return { modes: modeState(session.mode) };
      });
  }

  const stream = ndJsonStream(
    Writable.toWeb(output as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  await connection.closed;
  closed = true;
  await Promise.all([...sessions.values()].map((session) => session.close()));
}
