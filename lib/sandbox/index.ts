export { createSandbox, type SandboxOptions } from "./sandbox.ts";
export { middleTruncate, truncateItems } from "./truncation.ts";
export type * from "./types.ts";
