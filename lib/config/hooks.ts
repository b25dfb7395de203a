// `[[hooks.<Event>]]` of each configuration layer, labelled with the layer and file they came from: hooks are
// listed per layer rather than merged, so a project's hooks can be told apart (and skipped in an untrusted folder).
import { HOOK_TIMEOUT_DEFAULT_SEC } from "./defaults.ts";
import { isTable, type RawTable } from "./schema.ts";
import { ConfigError, HOOK_EVENTS, type HookConfig } from "./types.ts";

/** The hooks of one layer's table (already schema-checked), in event order, then file order. */
export function layerHooks(table: RawTable | undefined, origin: HookConfig["origin"], file: string): HookConfig[] {
  const hooks = isTable(table?.hooks) ? table.hooks : undefined;
  if (hooks === undefined) return [];
  const entries: HookConfig[] = [];
  for (const event of HOOK_EVENTS) {
    const list = hooks[event];
    if (!Array.isArray(list)) continue;
    list.forEach((raw: RawTable, index) => {
      const key = `hooks.${event}[${index}]`;
      const command = raw.command;
      if (typeof command !== "string" || command.trim() === "") {
        throw new ConfigError(`parse configuration ${file}: ${key}.command must be a non-empty command line`);
      }
      const matcher = typeof raw.matcher === "string" ? raw.matcher : undefined;
      if (matcher !== undefined && hookMatcher(matcher) === undefined) {
        throw new ConfigError(`parse configuration ${file}: ${key}.matcher is not a valid regular expression`);
      }
      const timeout = typeof raw.timeout_sec === "number" ? raw.timeout_sec : HOOK_TIMEOUT_DEFAULT_SEC;
      if (timeout < 1) throw new ConfigError(`parse configuration ${file}: ${key}.timeout_sec must be positive`);
      entries.push({
        event,
        ...(matcher === undefined ? {} : { matcher }),
        command,
        timeout_sec: timeout,
        origin,
        file,
      });
    });
  }
  return entries;
}

/**
 * A hook matcher as a test of the whole name: absent, empty or `*` matches everything; anything else is a regular
 * expression that must match the name from end to end (`bash|write` is bash or write, `mcp__.*` every MCP tool).
 * Undefined when it does not compile.
 */
export function hookMatcher(matcher: string | undefined): ((name: string) => boolean) | undefined {
  if (matcher === undefined || matcher === "" || matcher === "*") return () => true;
  try {
    const pattern = new RegExp(`^(?:${matcher})$`, "u");
    return (name) => pattern.test(name);
  } catch {
    return undefined;
  }
}
