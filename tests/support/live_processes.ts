// Live (not zombie) processes found by their command line (Linux /proc): how tests find a process that runs in a
// PID namespace of its own, where the pid it sees is not the host's.
import { readdirSync, readFileSync } from "node:fs";

/** The fields of /proc/<pid>/stat after the command name (state first, then the parent pid), or undefined if gone. */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** Host pids of the live processes whose NUL-separated arguments satisfy `matches`. */
export function livePids(matches: (args: string[]) => boolean): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!isRunning(Number(entry))) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0");
      if (args.at(-1) === "") args.pop();
      if (matches(args)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * The nice value of process `pid` (field 19 of /proc/<pid>/stat). A test that checks nobody reniced a process compares
 * it with its own: the suite may itself run niced (scripts/stress_suite.ts under `nice`), and children inherit it.
 */
export function niceOf(pid: number): number {
  const fields = statFields(pid);
  if (fields === undefined) throw new Error(`process ${pid} is gone`);
  return Number(fields[16]);
}

/** The parent pid of each live process. */
function parentPids(): Map<number, number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const fields = /^\d+$/.test(entry) ? statFields(entry) : undefined;
    if (fields !== undefined && fields[0] !== "Z") parents.set(Number(entry), Number(fields[1]));
  }
  return parents;
}

/** The parent pid of process `pid`, or undefined when it is gone. */
export function parentOf(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields === undefined ? undefined : Number(fields[1]);
}

/** `roots` and every live process below them (children, grandchildren, …), found by parent pid. */
export function processTree(roots: number[]): number[] {
  const parents = parentPids();
  const found = new Set(roots.filter((pid) => parents.has(pid)));
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (!found.has(pid) && found.has(parent)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found];
}

/** Whether `pid` is still running (a zombie has ended: only its exit status is left). */
export function isRunning(pid: number): boolean {
  const fields = statFields(pid);
  return fields !== undefined && fields[0] !== "Z";
}
