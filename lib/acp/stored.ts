// Stored sessions over ACP, through the engine's protocol only: `session/list` (the engine's `session.list`, paged
// with an opaque cursor), the checks of `session/load` (the same listing), and the replay of a stored conversation
// that `session/load` sends before it answers (the engine's `session.replay`), as user_message_chunk,
// tool_call, tool_call_update and agent_message_chunk notifications.
import { isAbsolute } from "node:path";
import { type ListSessionsResponse, RequestError, type SessionUpdate } from "@agentclientprotocol/sdk";
import { listStoredSessions } from "../embed/index.ts";
import { outputText } from "../render/index.ts";
import type { EventOf, ReplayTurn } from "../protocol/index.ts";
import type { ServerOptions } from "../embed/index.ts";
import type { Logger } from "../util/log.ts";
import { toolKind, toolLocations, toolTitle } from "./tool_calls.ts";

export const LIST_PAGE_SIZE = 50;
/** The note trimming leaves where older history was (docs/sessions.md): not something the user said. */
const COMPACTION_NOTE = "[SCV compacted ";

/** One page of the stored sessions, newest first, of `cwd` (absolute) or of every workspace. */
export async function listSessions(
  options: ServerOptions,
  log: Logger,
  cwd: string | null | undefined,
  cursor: string | null | undefined,
): Promise<ListSessionsResponse> {
  if (cwd != null && !isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  const start = cursor == null ? 0 : cursorOffset(cursor);
  const sessions = await listStoredSessions(options, log, cwd ?? undefined);
  const page = sessions.slice(start, start + LIST_PAGE_SIZE);
  const next = start + LIST_PAGE_SIZE;
  return {
    sessions: page.map((session) => ({
      sessionId: session.session_id,
      cwd: session.cwd,
      title: session.title,
      updatedAt: session.updated_at,
    })),
    ...(next < sessions.length ? { nextCursor: Buffer.from(`scv:${next}`).toString("base64url") } : {}),
  };
}

function cursorOffset(cursor: string): number {
  const match = /^scv:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match) throw RequestError.invalidParams({ cursor }, "cursor is not one session/list answered");
  return Number(match[1]);
}

/**
 * The stored session `id`, found through the engine's `session.list`: `-32002` when there is none, `-32602` when it
 * belongs to another workspace than `workspace` (canonical).
 */
export async function findStored(
  options: ServerOptions,
  log: Logger,
  id: string,
  workspace: string,
): Promise<EventOf<"sessions.listed">["sessions"][number]> {
  const sessions = await listStoredSessions(options, log, undefined);
  const found = sessions.find((session) => session.session_id === id);
  if (found === undefined) {
    throw new RequestError(-32002, `Resource not found: session ${id} was not found`, { sessionId: id });
  }
  if (found.cwd !== workspace) {
    throw RequestError.invalidParams(
      { cwd: workspace },
      `session ${id} belongs to the workspace ${found.cwd}, not ${workspace}`,
    );
  }
  return found;
}

/** The conversation the engine continues from (its `session.replay`), as the updates an editor draws it with. */
export function replayUpdates(turns: readonly ReplayTurn[], workspace: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  turns.forEach((turn, index) => {
    if (!turn.prompt.startsWith(COMPACTION_NOTE)) {
      updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: turn.prompt } });
    }
    turn.tools.forEach((tool, position) => {
      const toolCallId = tool.call_id ?? `replay-${index}-${position}`;
      const args = tool.arguments ?? {};
      updates.push({
        sessionUpdate: "tool_call",
        toolCallId,
        title: toolTitle(tool.name, args),
        kind: toolKind(tool.name),
        status: "pending",
        rawInput: args,
        locations: toolLocations(args, workspace),
      });
      const text = tool.output === undefined ? "" : outputText(tool.output);
      updates.push({
        sessionUpdate: "tool_call_update",
        toolCallId,
        status: tool.success ? "completed" : "failed",
        content: text === "" ? [] : [{ type: "content", content: { type: "text", text } }],
        ...(tool.output === undefined ? {} : { rawOutput: { output: tool.output } }),
      });
    });
    if (turn.answer !== "") {
      updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: turn.answer } });
    }
  });
  return updates;
}
