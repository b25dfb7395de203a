// Drives `scv acp` as an editor would: the real CLI over pipes, the official SDK's client side on top. Every line the
// agent writes is also kept raw and checked against the published ACP v1 JSON schema (tests/acp/fixtures), by the
// method it answers or carries.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import {
  client,
  type ClientConnection,
  methods,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import type { CliHarness, CliProcess } from "../support/cli_harness.ts";
import { waitFor } from "../support/wait.ts";

const require = createRequire(import.meta.url);
// ajv is in node_modules as a dependency of the MCP SDK; the tests use it, the agent does not.
const Ajv2020 = require("ajv/dist/2020.js").default as new (options: object) => {
  compile(schema: object): ((value: unknown) => boolean) & { errors?: unknown };
};

const SCHEMA = JSON.parse(readFileSync(new URL("./fixtures/acp-schema-v1.json", import.meta.url), "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const definition = (name: string) => ajv.compile({ $defs: SCHEMA.$defs, $ref: `#/$defs/${name}` });
/** The envelope: any message the agent may send. */
const agentMessage = ajv.compile({ ...SCHEMA.anyOf[0], $defs: SCHEMA.$defs });
const RESULTS: Record<string, ReturnType<typeof definition>> = {
  initialize: definition("InitializeResponse"),
  "session/new": definition("NewSessionResponse"),
  "session/prompt": definition("PromptResponse"),
  "session/set_mode": definition("SetSessionModeResponse"),
  "session/close": definition("CloseSessionResponse"),
  "session/load": definition("LoadSessionResponse"),
  "session/list": definition("ListSessionsResponse"),
};
const PARAMS: Record<string, ReturnType<typeof definition>> = {
  "session/update": definition("SessionNotification"),
  "session/request_permission": definition("RequestPermissionRequest"),
};
const errorObject = definition("Error");

/**
 * The schema violations of one line the agent wrote: the envelope, then the params of its method or the result of
 * the request it answers (`sentMethods`: request id → method of what the client sent).
 */
export function checkAgentLine(line: string, sentMethods: ReadonlyMap<string, string>): string[] {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(line);
  } catch {
    return [`not JSON on stdout: ${line.slice(0, 200)}`];
  }
  const found: string[] = [];
  if (!agentMessage(message)) found.push(`not an ACP agent message: ${line.slice(0, 300)}`);
  if (typeof message.method === "string") {
    const check = PARAMS[message.method];
    if (!check) found.push(`unexpected method ${message.method}`);
    else if (!check(message.params))
      found.push(`${message.method}: ${JSON.stringify(check.errors)} in ${line.slice(0, 500)}`);
  } else if ("error" in message) {
    if (!errorObject(message.error)) found.push(`bad error object: ${line}`);
  } else if ("result" in message) {
    const method = sentMethods.get(String(message.id));
    const check = method === undefined ? undefined : RESULTS[method];
    if (!check) found.push(`a result for an unknown request: ${line.slice(0, 300)}`);
    else if (!check(message.result)) found.push(`${method} result: ${JSON.stringify(check.errors)} in ${line}`);
  }
  return found;
}

export type PermissionAnswer = (
  request: RequestPermissionRequest,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

export type AcpRun = {
  process: CliProcess;
  connection: ClientConnection;
  /** Every session/update the agent sent, in order. */
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  /** Each line the agent wrote on stdout, parsed. */
  lines: () => unknown[];
  /** Schema violations found so far (the tests expect none). */
  violations: () => string[];
  /** What the agent has written on stderr so far. */
  stderr: () => string;
  /** Writes raw bytes to the agent's stdin (bad JSON, requests the SDK would not send). */
  writeRaw(text: string): void;
  /** Resolves with the first raw line that answers `id`. */
  rawResponse(id: number | string, timeoutMs?: number): Promise<Record<string, unknown>>;
};

export function startAcp(
  harness: CliHarness,
  options: { permission?: PermissionAnswer; env?: Record<string, string | undefined>; args?: string[] } = {},
): AcpRun {
  const proc = harness.start(["acp", ...(options.args ?? [])], { stdin: null, env: options.env });
  const child = proc.child;
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const parsed: unknown[] = [];
  const violations: string[] = [];
  /** Ids of the requests sent to the agent (by the SDK or raw), and their methods. */
  const sentMethods = new Map<string, string>();
  let pending = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: string | Buffer) => (stderr += chunk.toString()));
  const checkLine = (line: string) => {
    violations.push(...checkAgentLine(line, sentMethods));
    try {
      parsed.push(JSON.parse(line));
    } catch {
      // Reported as a violation.
    }
  };
  // The harness reads stdout as text (setEncoding): the SDK gets it back as bytes through a stream of its own.
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const fromAgent = new ReadableStream<Uint8Array>({ start: (controller) => void (feed = controller) });
  child.stdout!.once("end", () => feed.close());
  child.stdout!.on("data", (chunk: string | Buffer) => {
    feed.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk));
    pending += chunk.toString();
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() !== "") checkLine(line);
    }
  });

  // What the SDK writes goes through here first, so the test knows which method each response answers.
  const toAgent = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line.trim() === "") continue;
        const message = JSON.parse(line) as { id?: unknown; method?: unknown };
        if (message.id !== undefined && typeof message.method === "string")
          sentMethods.set(String(message.id), message.method);
      }
      if (!child.stdin!.writable) return done();
      child.stdin!.write(chunk, () => done());
    },
  });
  const app = client({ name: "scv-acp-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      if (!options.permission) return { outcome: { outcome: "cancelled" } };
      return options.permission(params);
    });
  const connection = app.connect(
    ndJsonStream(Writable.toWeb(toAgent) as WritableStream<Uint8Array>, fromAgent),
  );
  return {
    process: proc,
    connection,
    updates,
    permissions,
    lines: () => [...parsed],
    violations: () => [...violations],
    stderr: () => stderr,
    writeRaw(text) {
      for (const line of text.split("\n")) {
        try {
          const message = JSON.parse(line) as { id?: unknown; method?: unknown };
          if (message.id !== undefined && typeof message.method === "string")
            sentMethods.set(String(message.id), message.method);
        } catch {
          // Bad JSON on purpose.
        }
      }
      child.stdin!.write(text);
    },
    rawResponse(id, timeoutMs = 10_000) {
      const answers = (line: unknown) => (line as { id?: unknown }).id === id && !("method" in (line as object));
      return waitFor(() => parsed.find(answers) as Record<string, unknown> | undefined, {
        what: `the response to id ${id}`,
        timeoutMs,
      });
    },
  };
}
