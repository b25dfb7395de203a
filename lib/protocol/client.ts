// Client messages of the agent protocol (server spec §3), declared once: each message's fields as schemas, from
// which both the validator and the `ClientMessage` type come. The agent protocol is lenient where the host's
// protocol is strict: unknown fields are ignored (and dropped), an optional field may be absent or null (both
// leave it out), and a failure is worded the way spec §5.1 prints it after `invalid protocol JSON: `.
import { DecodeError, type Infer, type Schema, string, u32 } from "../util/schema.ts";

/** A field schema with the spec's name for what it expects ("a string", …), for the error text. */
type Field<T> = Schema<T> & { readonly expected: string };
type OptionalField<T> = Field<T> & { readonly optional: true };
type Shape = Record<string, Field<unknown>>;

function field<T>(schema: Schema<T>, expected: string): Field<T> {
  return { parse: schema.parse, expected };
}

function check<T>(expected: string, fits: (value: unknown) => value is T): Field<T> {
  return {
    expected,
    parse(value) {
      if (!fits(value)) throw new DecodeError(expected);
      return value;
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function maybe<T>(schema: Field<T>): OptionalField<T> {
  return { ...schema, optional: true };
}

export type PeerInfo = { name: string; version: string };

const text = field(string, "a string");
const u32Field = field(u32, "an unsigned 32-bit integer");
// Any non-negative integer JSON number (revisions): no upper bound beyond what a JSON number holds.
const u64Field = check(
  "an unsigned 64-bit integer",
  (value): value is number => Number.isInteger(value) && (value as number) >= 0,
);
const bool = check("a boolean", (value): value is boolean => typeof value === "boolean");
const objectField = check("an object", isPlainObject);
const stringOrNull = check(
  "a string or null",
  (value): value is string | null => value === null || typeof value === "string",
);
/** How long an approval is remembered (issue 28): for the rest of the session, or for good in the user file. */
export type Remember = "session" | "always";
const remember = check(
  '"session" or "always"',
  (value): value is Remember => value === "session" || value === "always",
);
const trustLevel = check(
  '"trusted" or "untrusted"',
  (value): value is "trusted" | "untrusted" => value === "trusted" || value === "untrusted",
);
const peer: Field<PeerInfo> = {
  expected: "an object with string name and version",
  parse(value) {
    if (!isPlainObject(value) || typeof value.name !== "string" || typeof value.version !== "string") {
      throw new DecodeError(this.expected);
    }
    return { name: value.name, version: value.version };
  },
};

/** A file that comes with a turn (upstream's `Attachment`): already on the server's host, inside the workspace. */
export type Attachment = {
  /** `image`, `audio`, `video`, `file` or `sticker`. */
  kind: string;
  /** Absolute path of a regular file. */
  path: string;
  name?: string;
  /** MIME type such as `image/png`. */
  mime?: string;
  /** Size in bytes, as the client saw it. */
  size: number;
  /** What a voice message said, when the client transcribed it. */
  transcript?: string;
};

/** A custom command a turn runs (issue 30): its name as `session.started.commands` lists it, and what was typed after it. */
export type CommandRef = { name: string; arguments: string };

const COMMAND_FIELDS = "an object with string name and optional string arguments";
const commandRef: Field<CommandRef> = {
  expected: COMMAND_FIELDS,
  parse(value) {
    if (!isPlainObject(value) || typeof value.name !== "string") throw new DecodeError(COMMAND_FIELDS);
    const args = value.arguments ?? "";
    if (typeof args !== "string") throw new DecodeError(COMMAND_FIELDS);
    return { name: value.name, arguments: args };
  },
};

const ATTACHMENT_FIELDS =
  "an array of attachments, each with string kind and path, unsigned size, and optional string name, mime and transcript";
const attachmentList: Field<Attachment[]> = {
  expected: ATTACHMENT_FIELDS,
  parse(value) {
    if (!Array.isArray(value)) throw new DecodeError(ATTACHMENT_FIELDS);
    return value.map((raw): Attachment => {
      if (!isPlainObject(raw) || typeof raw.kind !== "string" || typeof raw.path !== "string")
        throw new DecodeError(ATTACHMENT_FIELDS);
      if (!Number.isInteger(raw.size) || (raw.size as number) < 0) throw new DecodeError(ATTACHMENT_FIELDS);
      const attachment: Attachment = { kind: raw.kind, path: raw.path, size: raw.size as number };
      for (const key of ["name", "mime", "transcript"] as const) {
        const field = raw[key];
        if (field === undefined || field === null) continue;
        if (typeof field !== "string") throw new DecodeError(ATTACHMENT_FIELDS);
        attachment[key] = field;
      }
      return attachment;
    });
  },
};

type Flat<T> = { [K in keyof T]: T[K] };
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends { optional: true } ? never : K }[keyof S];
type Fields<S extends Shape> = Flat<
  { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in Exclude<keyof S, RequiredKeys<S>>]?: Infer<S[K]> }
>;
type MessageOf<V extends Record<string, Shape>> = {
  [T in keyof V & string]: Flat<{ type: T; request_id: string } & Fields<V[T]>>;
}[keyof V & string];

/**
 * Messages tagged by `type`, each with a `request_id` and the fields of its shape, checked in declaration order so
 * that the first missing or mistyped field is the one reported.
 */
function messages<const V extends Record<string, Shape>>(variants: V): Schema<MessageOf<V>> {
  const entries = new Map<string, [string, Field<unknown>][]>(
    Object.entries(variants).map(([type, shape]) => [type, Object.entries({ request_id: text, ...shape })]),
  );
  return {
    parse(value) {
      if (!isPlainObject(value)) throw new DecodeError("expected a JSON object");
      const type = value.type;
      if (type === undefined) throw new DecodeError("missing field `type`");
      if (typeof type !== "string") throw new DecodeError("invalid type for field `type`: expected a string");
      const fields = entries.get(type);
      if (!fields) throw new DecodeError(`unknown message type \`${type}\``);
      const message: Record<string, unknown> = { type };
      for (const [name, schema] of fields) {
        const raw = value[name];
        const optional = schema.optional === true;
        if (raw === undefined || (raw === null && optional)) {
          if (optional) continue;
          throw new DecodeError(`missing field \`${name}\``);
        }
        try {
          message[name] = schema.parse(raw);
        } catch (error) {
          if (!(error instanceof DecodeError)) throw error;
          throw new DecodeError(`invalid type for field \`${name}\`: expected ${schema.expected}`);
        }
      }
      return message as MessageOf<V>;
    },
  };
}

const SESSION = { session_id: text };

export const clientMessage = messages({
  initialize: { protocol_version: u32Field, client: peer },
  "session.start": {
    cwd: text,
    provider: maybe(text),
    model: maybe(text),
    base_url: maybe(text),
    no_tools: maybe(bool),
    delegation_depth: maybe(u32Field),
    auto_approve: maybe(bool),
    system_prompt: maybe(text),
    // Additive (issue 30): the folder the user works in, inside `cwd`; AGENTS.md files are read down to it.
    working_folder: maybe(text),
  },
  "session.attach": { ...SESSION, cwd: text },
  // Additive (issue 30): `command` runs a custom command; the model then gets its prompt, not `prompt`.
  "turn.start": { ...SESSION, prompt: text, attachments: maybe(attachmentList), command: maybe(commandRef) },
  "queue.update": { ...SESSION, queue_id: text, revision: u64Field, prompt: text },
  "queue.move": { ...SESSION, queue_id: text, revision: u64Field, before_queue_id: stringOrNull },
  "queue.remove": { ...SESSION, queue_id: text, revision: u64Field },
  "session.pause": { ...SESSION, paused: bool },
  "turn.cancel": { ...SESSION, turn_id: text },
  // Additive (issue 28): `remember` keeps an approval for the session or, in the user file, for good.
  "approval.resolve": { ...SESSION, approval_id: text, approved: bool, remember: maybe(remember) },
  "session.clear": { ...SESSION },
  // Additive (issue 15): change a running session's approval policy and/or model; the history stays.
  "session.configure": { ...SESSION, approval_policy: maybe(text), model: maybe(text) },
  // Additive (issue 31): undo the last turn, rewind to before a turn, compact the history, report usage.
  "session.undo": { ...SESSION, force: maybe(bool) },
  "session.rewind": { ...SESSION, turn_id: text, restore: text, force: maybe(bool) },
  "session.compact": { ...SESSION, focus: maybe(text) },
  "session.usage": { ...SESSION },
  // Additive (issue 30): record in the user file whether the user trusts the workspace (its project hooks run).
  "session.trust": { ...SESSION, trust_level: trustLevel },
  "daemon.control": { command: objectField },
  // Persistent sessions (docs/sessions.md), additions beyond upstream.
  "session.list": { cwd: maybe(text), all: maybe(bool), limit: maybe(u32Field) },
  "session.resume": {
    ...SESSION,
    provider: maybe(text),
    model: maybe(text),
    base_url: maybe(text),
    no_tools: maybe(bool),
    // Additive (issue 30): as in session.start; ignored when it is not inside the stored workspace.
    working_folder: maybe(text),
  },
  "session.fork": { ...SESSION },
  "session.delete": { ...SESSION },
});

/** Every client message, as the validator returns it. */
export type ClientMessage = Infer<typeof clientMessage>;
export type ClientMessageType = ClientMessage["type"];

/** What a client sends for a message, before its `request_id` (and, in a session, `session_id`) is added. */
export type ClientRequest = ClientMessage extends infer M
  ? M extends ClientMessage ? Flat<Omit<M, "request_id" | "session_id">>
  : never
  : never;

export type ParseResult = { ok: true; message: ClientMessage } | { ok: false; detail: string };

/**
 * Validates one decoded JSON value as a client message. Unknown extra fields are ignored (and dropped);
 * the `detail` of a failure follows the spec prefix `invalid protocol JSON: `.
 */
export function parseClientMessage(value: unknown): ParseResult {
  try {
    return { ok: true, message: clientMessage.parse(value) };
  } catch (error) {
    if (error instanceof DecodeError) return { ok: false, detail: error.message };
    throw error;
  }
}
