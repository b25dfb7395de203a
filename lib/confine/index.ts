// Public entry of lib/confine: running a process inside an operating-system sandbox that the engine's policy
// decides (what it may write, what it may not see, whether it has a network) and the OS enforces: bubblewrap, else
// util-linux unshare with the same layout made by hand (Linux), Seatbelt (macOS), nothing elsewhere.
export { BACKEND_ENV, BACKEND_NAMES, backendCandidates, type BackendName, missingTools } from "./backends.ts";
export {
  CommandSandbox,
  type CommandSandboxSettings,
  type ConfinedLaunch,
  selfTestProblem,
} from "./command_sandbox.ts";
export { denialsIn } from "./denials.ts";
export type { Launch, Program } from "./launch.ts";
export { type Layout, layoutIdentity, planLayout } from "./layout.ts";
export { type ConfinePolicy, ESCAPE_SOCKETS, hiddenPaths, HOME_SECRETS, PROTECTED_NAMES } from "./policy.ts";
export { SCAN_DEPTH, SCAN_ENTRY_LIMIT, scanSecrets } from "./secret_scan.ts";
export { seatbeltProfile } from "./seatbelt.ts";
export { layoutArgs as bwrapLayoutArgs } from "./bwrap.ts";
export { mountPoints, unshareScript } from "./unshare.ts";
export { type Layer, type SelfTest, selfTest } from "./self_test.ts";
