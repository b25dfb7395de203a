// The worker-thread code sandbox: runs model-written JavaScript cells for `scv host` and the
// server's `exec` tool, through one transport-free interface (types.ts).
//
// - pool.ts: warm worker threads per heap limit (`resourceLimits`); the worker code is
//   embedded as a string (worker_main.ts), so bundles and the single-executable binary work.
// - worker_main.ts: one cell at a time per worker, each in a fresh vm context prepared ahead.
// - runtime.ts: the cell's API (host spec §7), evaluated inside the context; it reaches the
//   worker only through one function taking and returning primitives, so no object of the
//   worker's realm ever reaches cell code.
// - session.ts: cells, observers, yield timers, terminate, store snapshots (host spec §6).
// - module_source.ts: module syntax (import/export) for a cell run as an async function.
// - truncation.ts: output truncation (host spec §9), pure.
export { createSandbox, type SandboxOptions } from "./sandbox.ts";
export { middleTruncate, truncateItems } from "./truncation.ts";
export type * from "./types.ts";
