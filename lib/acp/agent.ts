// The ACP agent over one connection (newline-delimited JSON-RPC 2.0): initialize, session/new, session/prompt,
// session/cancel, session/close and session/set_mode (the approval policies as modes). Each session is an
// in-process engine session, with the same engine and configuration as `scv server`.
import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  agent,
  type AgentCapabilities,
  type InitializeResponse,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { EngineError } from "../client/index.ts";
import type { ServerOptions } from "../server/index.ts";
import type { Logger } from "../util/log.ts";
import { VERSION } from "../version.ts";
import { isMode, MODES, modeState } from "./modes.ts";
import { AcpSession } from "./session.ts";

export type AcpFeatures = {
  /**
   * Sessions outlive the process: advertise `loadSession` and `session/list`. Off until the engine persists
   * sessions; the handlers for session/load and session/list register beside session/new when it turns on.
   */
  persistentSessions: boolean;
};

export const DEFAULT_FEATURES: AcpFeatures = { persistentSessions: false };

/** What scv offers, and no more: text prompts (with resource links, which ACP requires of every agent). */
export function agentCapabilities(features: AcpFeatures): AgentCapabilities {
  return {
    loadSession: features.persistentSessions,
    promptCapabilities: { image: false, audio: false, embeddedContext: false },
    mcpCapabilities: { http: false, sse: false },
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

/** Serves ACP on `input`/`output` until the client closes the connection; then every session's engine stops. */
export async function serveAcp(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  options: ServerOptions,
  log: Logger,
  features: AcpFeatures = DEFAULT_FEATURES,
): Promise<void> {
  const sessions = new Map<string, AcpSession>();
  let closed = false;
  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.invalidParams({ sessionId }, `unknown session ${sessionId}`);
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
      if (!isAbsolute(params.cwd))
        throw RequestError.invalidParams({ cwd: params.cwd }, "cwd must be an absolute path");
      // MCP servers are accepted and not started yet: the engine has no MCP client (the MCP issue adds one).
      if (params.mcpServers.length > 0) {
        log.warn(`ignoring ${params.mcpServers.length} MCP server(s): scv does not connect to MCP servers yet`);
      }
      const info = await stat(params.cwd).catch(() => undefined);
      if (!info?.isDirectory()) {
        throw RequestError.invalidParams({ cwd: params.cwd }, `cwd ${params.cwd} is not a directory`);
      }
      let session: AcpSession;
      try {
        session = await AcpSession.open(options, log, { cwd: params.cwd }, client);
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
      return { sessionId: session.id, modes: modeState(session.mode) };
    })
    .onRequest(methods.agent.session.setMode, ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (!isMode(params.modeId)) {
        const known = MODES.map((mode) => mode.id).join(", ");
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode ${params.modeId} (expected one of ${known})`,
        );
      }
      session.mode = params.modeId;
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

  const stream = ndJsonStream(
    Writable.toWeb(output as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(input as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  await connection.closed;
  closed = true;
  await Promise.all([...sessions.values()].map((session) => session.close()));
}
