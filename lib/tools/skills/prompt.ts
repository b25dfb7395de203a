// The system-prompt listing of skills (spec §8.1), appended by the server core for tool sessions.

import type { Skill } from "./discover.ts";

export function skillsPromptSection(skills: Skill[]): string {
  if (skills.length === 0) return "";
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description}\n`).join("");
  return `\n# Available skills\n${lines}\nUse read_skill with a skill name when its workflow applies.\n`;
}
