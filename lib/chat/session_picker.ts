// The rows of `scv chat --resume` / `/resume` without an id: stored sessions newest first, numbered, with title,
// age and turn count; the user answers with a number at the prompt.
import type { EventOf, ReplayTurn } from "../protocol/index.ts";
import { stripControls, type Style } from "../render/index.ts";

export type StoredSessionRow = EventOf<"sessions.listed">["sessions"][number];

const SHOWN = 20;

export function ageOf(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** `sessionOpen`: the picker was opened from a running session (`/resume`), which Esc and Ctrl-C go back to. */
export function pickerRows(sessions: readonly StoredSessionRow[], style: Style, sessionOpen = false): string[] {
  if (sessions.length === 0) return ["no stored sessions in this workspace; starting a new one"];
  const shown = sessions.slice(0, SHOWN);
  const rows = shown.map((session, index) => {
    const turns = `${session.turns} turn${session.turns === 1 ? "" : "s"}`;
    const title = session.title === "" ? "(no prompt)" : stripControls(session.title);
    return `${String(index + 1).padStart(3)}  ${title}  ${style.dim(`${ageOf(session.updated_at)} · ${turns}`)}`;
  });
  const more = sessions.length > SHOWN
    ? [style.dim(`  … and ${sessions.length - SHOWN} older (scv sessions lists them)`)]
    : [];
  return [
    "Stored sessions, newest first:",
    ...rows,
    ...more,
    style.dim(
      sessionOpen
        ? "Type a number to resume it, or press Enter for a new session; Esc or Ctrl-C keeps the current one."
        : "Type a number to resume it, or press Enter (or Esc) for a new session; Ctrl-C quits.",
    ),
  ];
}

/** The session a picker answer chooses: undefined for a new session, "invalid" for anything else. */
export function pickSession(
  answer: string,
  sessions: readonly StoredSessionRow[],
): StoredSessionRow | undefined | "invalid" {
  const text = answer.trim();
  if (text === "") return undefined;
  const number = Number(text);
  if (!Number.isInteger(number) || number < 1 || number > Math.min(SHOWN, sessions.length)) return "invalid";
  return sessions[number - 1];
}

/** A resumed session's earlier turns, as the transcript shows them (prompt, answer, tools, how it ended). */
export function replayRows(turns: readonly ReplayTurn[], omitted: number, style: Style, prompt: string): string[] {
  const rows: string[] = [];
  if (omitted > 0) rows.push(style.dim(`… ${omitted} earlier turn${omitted === 1 ? "" : "s"} not shown`));
  // Stored text is model and user text: no control character of it may reach the terminal.
  const lines = (text: string) => stripControls(text.replace(/\r\n?/g, "\n")).split("\n");
  for (const turn of turns) {
    rows.push(...lines(turn.prompt).map((line, index) => style.bold(`${index === 0 ? prompt : "  "}${line}`)));
    for (const tool of turn.tools) rows.push(style.dim(`  ${tool.success ? "✓" : "✗"} ${stripControls(tool.name)}`));
    if (turn.answer !== "") rows.push(...lines(turn.answer));
    if (turn.status !== "completed") rows.push(style.dim(`(turn ${turn.status})`));
    rows.push("");
  }
  return rows;
}
