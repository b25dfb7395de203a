// `[permissions]` of each configuration layer: its rules checked (a bad rule is an error naming the rule and the
// file) and labelled with the file they came from. The workspace file may add `ask` and `deny` rules only: an
// untrusted checkout must not be able to allow anything.
import { parseRule, RULE_LISTS, type RuleEntry } from "../policy/index.ts";
import { isTable, type RawTable } from "./schema.ts";
import { ConfigError, type PermissionsConfig } from "./types.ts";

/** The rules of one layer's table, in deny, ask, allow order. `project` refuses `allow`. */
export function layerRules(table: RawTable | undefined, file: string, origin: string, project: boolean): RuleEntry[] {
  const permissions = isTable(table?.permissions) ? table.permissions : undefined;
  if (permissions === undefined) return [];
  // checkProjectLayer refused a project `allow` already; this keeps the rule true for any other caller.
  if (project && "allow" in permissions) {
    throw new ConfigError(`project configuration ${file} cannot set permissions.allow`);
  }
  const entries: RuleEntry[] = [];
  for (const list of RULE_LISTS) {
    const rules = permissions[list];
    if (!Array.isArray(rules)) continue;
    for (const rule of rules as string[]) {
      const parsed = parseRule(rule);
      if (!parsed.ok) {
        throw new ConfigError(
          `parse configuration ${file}: permissions.${list} rule ${JSON.stringify(rule)}: ${parsed.problem}`,
        );
      }
      entries.push({ list, rule, origin });
    }
  }
  return entries;
}

/** The lists of every layer together, each rule once. */
export function permissionLists(entries: readonly RuleEntry[]): PermissionsConfig {
  const lists: PermissionsConfig = { allow: [], ask: [], deny: [] };
  for (const entry of entries) if (!lists[entry.list].includes(entry.rule)) lists[entry.list].push(entry.rule);
  return lists;
}
