// The system prompt's parts in-process (spec §8.1): the configured prompt, the workspace, the folder the user works
// in when it is below the workspace, then the project instructions and the skills.
import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../lib/server/system_prompt.ts";

describe("buildSystemPrompt", () => {
  it("is the configured prompt and the workspace, then the instructions and skills sections", () => {
    expect(buildSystemPrompt({
      systemPrompt: "Be brief.",
      workspace: "/repo",
      instructionsSection: "\n# Project instructions\nx\n",
      skillsSection: "\n# Available skills\ny\n",
    })).toBe("Be brief.\nCurrent working directory: /repo\n\n# Project instructions\nx\n\n# Available skills\ny\n");
  });

  it("names the working folder only when it is below the workspace", () => {
    const same = buildSystemPrompt({ systemPrompt: "P", workspace: "/repo", workingFolder: "/repo" });
    expect(same).toBe("P\nCurrent working directory: /repo\n");
    const below = buildSystemPrompt({ systemPrompt: "P", workspace: "/repo", workingFolder: "/repo/pkg" });
    expect(below).toContain("The user works in /repo/pkg");
  });
});
