// The `read_skill` tool (spec §9): loads a discovered skill's SKILL.md, confined to its root.

import { TextDecoder } from "node:util";
import type { ResolvedConfig } from "../../config/index.ts";
import { cancelledOutcome, failure } from "../outcome.ts";
import type { ObjectSchema } from "../schema.ts";
import { validateArguments } from "../schema.ts";
import type { Tool, ToolOutcome } from "../types.ts";
import { completeUtf8Length } from "../../util/text_bounds.ts";
import type { Skill } from "./discover.ts";
import { readHead, resolveInside } from "./discover.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function createReadSkillTool(skills: Skill[], config: ResolvedConfig): Tool {
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  const maxBytes = config.skills.max_skill_bytes;
  const parameters: ObjectSchema = {
    type: "object",
    properties: { name: { type: "string", description: "A skill name from the Available skills list" } },
    required: ["name"],
    additionalProperties: false,
  };
  return {
    name: "read_skill",
    description: "Load a discovered SCV skill by name",
    parameters,
    prepare(args) {
      const checked = validateArguments<{ name: string }>(parameters, args);
      if (!checked.ok) return { error: checked.error };
      const name = checked.value.name;
      const skill = byName.get(name);
      if (skill === undefined) return { error: `unknown skill: ${name}` };
      return {
        risk: "read_only",
        access: { effect: "read" },
        summary: `Load skill ${name}`,
        run: (
          context,
        ) => (context.signal.aborted
          ? Promise.resolve(cancelledOutcome("read_skill cancelled"))
          : readSkill(skill, maxBytes)),
      };
    },
  };
}

async function readSkill(skill: Skill, maxBytes: number): Promise<ToolOutcome> {
  // Resolved again: the file may have been replaced by a symlink since discovery.
  const resolved = await resolveInside(skill.root, skill.path);
  if (resolved === "escaped") return failure("skill path escaped its configured root");
  if (resolved === "missing") return failure(`read skill ${skill.name}: SKILL.md is missing or not a regular file`);
  let bytes: Buffer;
  try {
    bytes = await readHead(resolved, maxBytes);
  } catch (error) {
    return failure(`read skill ${skill.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const cut = bytes.length > maxBytes;
  const kept = cut ? bytes.subarray(0, completeUtf8Length(bytes.subarray(0, maxBytes))) : bytes;
  try {
    return { success: true, output: utf8.decode(kept), truncated: cut };
  } catch {
    return failure("skill is not UTF-8");
  }
}
