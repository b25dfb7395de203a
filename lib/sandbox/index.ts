// The code sandbox: runs model-written JavaScript cells for `scv host` and the server's `exec`
// tool, through one transport-free interface (types.ts). The boundary is an operating-system
// process (docs/sandbox.md).
//
// - launch.ts: how a sandbox process is started (re-executed scv, no permissions, no network).
// - child_main.ts: the process's start: its channel to the host and the self-test of its restrictions.
// - worker_main.ts: one cell at a time per process, each in a fresh vm context prepared ahead.
// - runtime.ts: the cell's API (host spec §7), evaluated inside the context; it reaches the
//   process only through one function taking and returning primitives.
// - sandbox_process.ts, channel.ts: a process seen from the host: states, frames, memory cap, kill.
// - pool.ts: warm processes that belong to no session yet; session.ts: cells, observers, yield
//   timers, terminate, the store, and the session's own processes (never shared).
// - checks.ts: the host's checks of everything a process sends (shapes, URL rules, budgets).
// - output_budget.ts: how much undelivered output a caller (a host connection) lets wait.
// - namespaces.ts: starting a program in fresh Linux namespaces (bwrap, unshare) in an empty root.
// - bwrap_args.ts: the one builder of bubblewrap command lines, shared with lib/confine (commands, MCP servers).
// - module_source.ts: module syntax (import/export) for a cell run as an async function.
export { createSandbox, type SandboxOptions } from "./sandbox.ts";
export { OutputBudget } from "./output_budget.ts";
export {
  type Bind,
  type Isolation,
  isolationFor,
  libraryBinds,
  type NamespaceLayout,
  namespaceSupport,
  SETPRIV,
  UNSHARE,
  wrap,
  type Wrapped,
} from "./namespaces.ts";
export { BWRAP, bwrapArgs, type BwrapSpec, type BwrapStep } from "./bwrap_args.ts";
export type * from "./types.ts";
