// Skills: discovery, the read_skill tool and the system-prompt listing.
export type { DiscoverOptions, Skill } from "./discover.ts";
export { discoverSkills } from "./discover.ts";
export { createReadSkillTool } from "./read_skill.ts";
export { skillsPromptSection } from "./prompt.ts";
