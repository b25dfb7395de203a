// `scv sessions [--all] [--json]` and `scv sessions delete ID`: the stored sessions of this workspace (or all),
// read from the sessions index only, newest first.
import { startFolders } from "../util/repository_root.ts";
import { resolveHome } from "../config/index.ts";
import { formatUsd } from "../render/index.ts";
import { deleteSession, listSessions, SessionNotFoundError, type SessionSummary } from "../sessions/index.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit.ts";

export type SessionsCliOptions = { all?: boolean; json?: boolean; limit?: string; scvHome?: string };

/** How many sessions the table shows unless --limit says otherwise (JSON shows all). */
const TABLE_LIMIT = 50;

/** `2026-12-01 12:03` in local time: enough to tell sessions apart at a glance. */
function shortTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${
    pad(date.getMinutes())
  }`;
}

const COST_WIDTH = 8;

/**
 * `$0.0123`; `?` when a price was unknown (the cost is null); `-` when nothing was counted (no token counts from the
 * provider, or a session of a version that kept none).
 */
function costText(session: SessionSummary): string {
  const counted = Object.values(session.usage ?? {}).some((count) => typeof count === "number");
  if (!counted || session.cost_usd === undefined) return "-";
  return session.cost_usd === null ? "?" : formatUsd(session.cost_usd);
}

function printTable(sessions: SessionSummary[], all: boolean, total: number): void {
  if (sessions.length === 0 && total === 0) {
    process.stdout.write(
      all ? "No stored sessions.\n" : "No stored sessions in this workspace (scv sessions --all lists every one).\n",
    );
    return;
  }
  const rows = sessions.map((session) => {
    const title = session.title === "" ? "(no prompt)" : session.title;
    return `${session.id}  ${shortTime(session.updated_at)}  ${String(session.turns).padStart(5)}  ${
      costText(session).padStart(COST_WIDTH)
    }  ${title}${all ? `  (${session.cwd})` : ""}`;
  });
  const more = total > sessions.length ? `… ${total - sessions.length} older (--limit 0 shows all)\n` : "";
  process.stdout.write(
    `${"ID".padEnd(36)}  ${"UPDATED".padEnd(16)}  TURNS  ${"COST".padStart(COST_WIDTH)}  TITLE\n${
      rows.map((row) => `${row}\n`).join("")
    }${more}`,
  );
}

export async function runSessions(
  action: string | undefined,
  id: string | undefined,
  options: SessionsCliOptions,
): Promise<number> {
  const home = resolveHome(options.scvHome, process.env).home;
  if (action !== undefined && action !== "delete") {
    process.stderr.write(`scv sessions: unknown action '${action}' (expected: delete)\n`);
    return EXIT_USAGE;
  }
  if (action === "delete") {
    if (id === undefined || id === "") {
      process.stderr.write("scv sessions: delete needs a session id (see scv sessions)\n");
      return EXIT_USAGE;
    }
    try {
      deleteSession(home, id);
    } catch (error) {
      process.stderr.write(`scv sessions: ${(error as Error).message}\n`);
      return error instanceof SessionNotFoundError ? EXIT_USAGE : EXIT_FAILURE;
    }
    process.stdout.write(`Deleted session ${id}.\n`);
    return EXIT_OK;
  }
  const all = options.all === true;
  let limit = options.json === true ? 0 : TABLE_LIMIT;
  if (options.limit !== undefined) {
    limit = Number(options.limit);
    if (!Number.isInteger(limit) || limit < 0) {
      process.stderr.write(
        `scv sessions: --limit must be a whole number (0 for all), not ${JSON.stringify(options.limit)}\n`,
      );
      return EXIT_USAGE;
    }
  }
  // The workspace chat and exec would use here: the repository root when this is a subfolder of one.
  const workspace = all ? undefined : (await startFolders(process.cwd(), process.env)).workspace;
  let sessions: SessionSummary[];
  try {
    sessions = listSessions(home, workspace);
  } catch (error) {
    process.stderr.write(`scv sessions: read the sessions index: ${(error as Error).message}\n`);
    return EXIT_FAILURE;
  }
  const shown = limit === 0 ? sessions : sessions.slice(0, limit);
  if (options.json === true) {
    process.stdout.write(`${JSON.stringify(shown)}\n`);
    return EXIT_OK;
  }
  printTable(shown, all, sessions.length);
  return EXIT_OK;
}
