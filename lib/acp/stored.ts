// Stored sessions over ACP: `session/list` (the engine's listing, paged with an opaque cursor) and the replay of a
// stored conversation that `session/load` sends before it answers: the history the next prompt continues from, as
// user_message_chunk, agent_message_chunk, tool_call and tool_call_update notifications.
import { isAbsolute } from "node:path";
import { type ListSessionsResponse, RequestError, type SessionUpdate } from "@agentclientprotocol/sdk";
import { listStoredSessions, outputText } from "../client/index.ts";
import { resolveHome } from "../config/index.ts";
import type { HistoryItem } from "../provider/index.ts";
import type { ServerOptions } from "../server/index.ts";
import { type JournalContents, loadSession, SessionNotFoundError } from "../sessions/index.ts";
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

/** The stored session `id`; `-32002` when there is none, `-32602` when it belongs to another workspace. */
export function storedSession(options: ServerOptions, id: string, workspace: string): JournalContents {
  let journal: JournalContents;
  try {
    journal = loadSession(resolveHome(options.scvHome, options.env).home, id);
  } catch (error) {
    if (error instanceof SessionNotFoundError)
      throw new RequestError(-32002, `Resource not found: ${error.message}`, { sessionId: id });
    throw RequestError.internalError({ sessionId: id }, (error as Error).message);
  }
  if (journal.meta.workspace !== workspace) {
    throw RequestError.invalidParams(
      { cwd: workspace },
      `session ${id} belongs to the workspace ${journal.meta.workspace}, not ${workspace}`,
    );
  }
  return journal;
}

/** The conversation the engine continues from, as the updates an editor draws it with. */
export function replayUpdates(history: readonly HistoryItem[], workspace: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const item of history) {
    switch (item.kind) {
      case "user":
        if (item.content.startsWith(COMPACTION_NOTE)) break;
        updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: item.content } });
        break;
      case "assistant":
        if (item.content !== "")
          updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: item.content } });
        for (const call of item.calls) {
          updates.push({
            sessionUpdate: "tool_call",
            toolCallId: call.call_id,
            title: toolTitle(call.name, call.arguments),
            kind: toolKind(call.name),
            status: "pending",
            rawInput: call.arguments,
            locations: toolLocations(call.arguments, workspace),
          });
        }
        break;
      case "tool_result": {
        const text = outputText(item.output);
        updates.push({
          sessionUpdate: "tool_call_update",
          toolCallId: item.call_id,
          status: item.success ? "completed" : "failed",
          content: text === "" ? [] : [{ type: "content", content: { type: "text", text } }],
          rawOutput: { output: item.output },
        });
        break;
      }
    }
  }
  return updates;
}
