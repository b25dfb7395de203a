// Shared fixtures for the tool tests: real temporary workspaces and a real tool context.

import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../../lib/config/defaults.ts";
import type { ResolvedConfig } from "../../lib/config/types.ts";
import type { PreparedCall, Tool, ToolContext, ToolOutcome } from "../../lib/tools/types.ts";

export type Sandbox = { root: string; workspace: string; outside: string; cleanup(): void };

/** A temp dir holding a canonical `workspace/` and a sibling `outside/`. */
export function makeSandbox(): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "scv-tools-")));
  const workspace = join(root, "workspace");
  const outside = join(root, "outside");
  mkdirSync(workspace);
  mkdirSync(outside);
  return {
    root,
    workspace,
    outside,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function testConfig(patch: Partial<ResolvedConfig["tools"]> = {}): ResolvedConfig {
  const config = defaultConfig("/nonexistent/skills");
  return { ...config, tools: { ...config.tools, ...patch } };
}

export function prepare(tool: Tool, args: unknown, workspace: string, config = testConfig()): PreparedCall {
  const prepared = tool.prepare(args, { workspace, config });
  if ("error" in prepared) throw new Error(`prepare failed: ${prepared.error}`);
  return prepared;
}

export function prepareError(tool: Tool, args: unknown, workspace: string, config = testConfig()): string {
  const prepared = tool.prepare(args, { workspace, config });
  if (!("error" in prepared)) throw new Error("prepare unexpectedly succeeded");
  return prepared.error;
}

export type RunOptions = { signal?: AbortSignal; progress?: string[]; config?: ResolvedConfig };

export function run(call: PreparedCall, workspace: string, options: RunOptions = {}): Promise<ToolOutcome> {
  const context: ToolContext = {
    workspace,
    config: options.config ?? testConfig(),
    signal: options.signal ?? new AbortController().signal,
    progress: (text) => options.progress?.push(text),
  };
  return call.run(context);
}
