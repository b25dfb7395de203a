// The `bash` tool as a session runs it, for the sandbox benchmarks: one tool unconfined and one per back end (each
// with its own standby, lib/tools/standby_shell.ts), and one call timed from run to outcome.
import { defaultConfig } from "../../lib/config/index.ts";
import type { CommandSandbox } from "../../lib/confine/index.ts";
import { createBashTool } from "../../lib/tools/bash.ts";
import { ProcessGroups } from "../../lib/tools/process_group.ts";
import type { Tool } from "../../lib/tools/types.ts";

const SETTINGS = { commandTimeoutSeconds: 600, maxTimeoutSeconds: 600, outputLimitBytes: 65536 };
const config = defaultConfig("/nonexistent/skills");

/** `unconfined`, then one tool per sandbox given, by back end name. */
export function bashTools(sandboxes: Record<string, CommandSandbox>): Record<string, Tool> {
  const tools: Record<string, Tool> = {
    unconfined: createBashTool({ ...SETTINGS, processGroups: new ProcessGroups() }),
  };
  for (const [name, sandbox] of Object.entries(sandboxes)) {
    tools[name] = createBashTool({ ...SETTINGS, sandbox, processGroups: new ProcessGroups() });
  }
  return tools;
}

/** One call of `command` from run to outcome, in ms; throws with the outcome when it fails. */
export async function timeBashTool(tool: Tool, workspace: string, command: string): Promise<number> {
  const call = tool.prepare({ command }, { workspace, config });
  if ("error" in call) throw new Error(call.error);
  const begin = performance.now();
  const outcome = await call.run({ workspace, config, signal: new AbortController().signal, progress: () => {} });
  if (!outcome.success) throw new Error(`the bash tool failed: ${JSON.stringify(outcome).slice(0, 2000)}`);
  return performance.now() - begin;
}
