// Skills: discovery, the read_skill tool and the system-prompt listing.
export type { Skill, DiscoverOptions } from "./discover.ts";
export { discoverSkills } from "./discover.ts";
export { createReadSkillTool } from "./read_skill.ts";
export { skillsPromptSection } from "./prompt.ts";
