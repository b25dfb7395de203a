import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../../lib/config/defaults.ts";
import type { ResolvedConfig } from "../../../lib/config/types.ts";
import { createReadSkillTool, discoverSkills, skillsPromptSection } from "../../../lib/tools/skills/index.ts";
import type { Skill } from "../../../lib/tools/skills/index.ts";
import { skillDescription } from "../../../lib/tools/skills/description.ts";
import type { ToolOutcome } from "../../../lib/tools/types.ts";

let root: string;
let workspace: string;
let userDir: string;
let outside: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "scv-skills-")));
  workspace = join(root, "workspace");
  userDir = join(root, "home", "skills");
  outside = join(root, "outside");
  for (const dir of [workspace, userDir, outside]) mkdirSync(dir, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function config(skills: Partial<ResolvedConfig["skills"]> = {}): ResolvedConfig {
  const base = defaultConfig(userDir);
  return { ...base, skills: { ...base.skills, user_dir: userDir, ...skills } };
}

function skill(base: string, name: string, content: string | Buffer): string {
  mkdirSync(join(base, name), { recursive: true });
  const path = join(base, name, "SKILL.md");
  writeFileSync(path, content);
  return path;
}

const project = (): string => join(workspace, ".scv", "skills");

async function load(skills: Skill[], name: string, cfg = config()): Promise<ToolOutcome | string> {
  const tool = createReadSkillTool(skills, cfg);
  const prepared = tool.prepare({ name }, { workspace, config: cfg });
  if ("error" in prepared) return prepared.error;
  expect(prepared.risk).toBe("read_only");
  expect(prepared.summary).toBe(`Load skill ${name}`);
  return prepared.run({ workspace, config: cfg, signal: new AbortController().signal, progress: () => {} });
}

describe("discoverSkills", () => {
  it("finds project and user skills, project first, sorted by name", async () => {
    skill(project(), "deploy", "---\nname: deploy\ndescription: Ship it to production\n---\n# Deploy\nSteps");
    skill(userDir, "deploy", "user version");
    skill(userDir, "bisect", "# Bisect\n\nFind the bad commit with git bisect.");
    skill(userDir, "Zeta", "");
    mkdirSync(join(userDir, "no-skill-file"));
    skill(userDir, ".hidden", "hidden");
    writeFileSync(join(userDir, "loose.md"), "not a skill directory");
    const skills = await discoverSkills(config(), workspace, { warn: () => {} });
    expect(skills.map((entry) => [entry.name, entry.description])).toEqual([
      ["Zeta", "No description provided"],
      ["bisect", "Find the bad commit with git bisect."],
      ["deploy", "Ship it to production"],
    ]);
    expect(skills.find((entry) => entry.name === "deploy")!.root).toBe(project());
  });

  it("honours scan_projects = false and max_skills", async () => {
    skill(project(), "alpha", "project alpha");
    skill(userDir, "beta", "user beta");
    skill(userDir, "gamma", "user gamma");
    expect((await discoverSkills(config({ scan_projects: false }), workspace)).map((entry) => entry.name)).toEqual([
      "beta",
      "gamma",
    ]);
    expect((await discoverSkills(config({ max_skills: 2 }), workspace)).map((entry) => entry.name)).toEqual([
      "alpha",
      "beta",
    ]);
  });

  it("refuses skills whose SKILL.md or directory escapes the root through a symlink", async () => {
    writeFileSync(join(outside, "SKILL.md"), "secret outside");
    mkdirSync(join(userDir, "linkfile"));
    symlinkSync(join(outside, "SKILL.md"), join(userDir, "linkfile", "SKILL.md"));
    symlinkSync(outside, join(userDir, "linkdir"));
    skill(userDir, "inner", "inside");
    symlinkSync(join(userDir, "inner"), join(userDir, "alias"));
    const warnings: string[] = [];
    const skills = await discoverSkills(config(), workspace, { warn: (text) => warnings.push(text) });
    expect(skills.map((entry) => entry.name)).toEqual(["alias", "inner"]);
    expect(warnings.sort()).toEqual([
      "warning: skill linkdir is ignored: skill path escaped its configured root",
      "warning: skill linkfile is ignored: skill path escaped its configured root",
    ]);
  });

  it("ignores a project skills dir that resolves outside the workspace", async () => {
    mkdirSync(join(workspace, ".scv"));
    symlinkSync(outside, project());
    skill(outside, "planted", "from outside the workspace");
    const warnings: string[] = [];
    expect(await discoverSkills(config(), workspace, { warn: (text) => warnings.push(text) })).toEqual([]);
    expect(warnings).toEqual([
      "warning: skills.project_dir .scv/skills resolves outside the workspace; its skills are ignored",
    ]);
  });

  it("works without any skill directory", async () => {
    rmSync(userDir, { recursive: true });
    expect(await discoverSkills(config(), workspace)).toEqual([]);
  });
});

describe("skillDescription", () => {
  it("prefers the front-matter description, quoted or as a block", () => {
    expect(skillDescription('---\nname: x\ndescription: "Quoted: yes"\n---\nbody')).toBe("Quoted: yes");
    expect(skillDescription("---\ndescription: >\n  Folded over\n  two lines\nother: 1\n---\nbody")).toBe(
      "Folded over two lines",
    );
    expect(skillDescription("\ufeff---\r\ndescription: crlf\r\n---\r\n")).toBe("crlf");
  });

  it("falls back to the first non-heading line, then to the default", () => {
    expect(skillDescription("---\nname: x\n---\n\n# Title\n## Sub\n\n  First   real line  \nsecond")).toBe(
      "First real line",
    );
    expect(skillDescription("# Only a heading\n\n")).toBe("No description provided");
    expect(skillDescription("")).toBe("No description provided");
  });

  it("cuts descriptions to 240 characters", () => {
    expect(skillDescription("é".repeat(300))).toBe("é".repeat(240));
    expect(skillDescription(`---\ndescription: ${"d".repeat(500)}\n---`)).toBe("d".repeat(240));
  });
});

describe("read_skill", () => {
  it("loads a skill's SKILL.md", async () => {
    skill(userDir, "bisect", "# Bisect\nRun git bisect.\n");
    const skills = await discoverSkills(config(), workspace);
    expect(await load(skills, "bisect")).toEqual({
      success: true,
      truncated: false,
      output: "# Bisect\nRun git bisect.\n",
    });
  });

  it("reports unknown skills before running", async () => {
    const tool = createReadSkillTool([], config());
    expect(tool.name).toBe("read_skill");
    expect(tool.description).toBe("Load a discovered SCV skill by name");
    expect(await load([], "nope")).toBe("unknown skill: nope");
    expect(tool.prepare({}, { workspace, config: config() })).toEqual({
      error: 'invalid arguments: missing required property "name"',
    });
  });

  it("refuses a SKILL.md replaced by an escaping symlink after discovery", async () => {
    const path = skill(userDir, "swap", "fine");
    const skills = await discoverSkills(config(), workspace);
    unlinkSync(path);
    writeFileSync(join(outside, "secret.md"), "secret");
    symlinkSync(join(outside, "secret.md"), path);
    expect(await load(skills, "swap")).toEqual({
      success: false,
      truncated: false,
      error: "failed",
      output: "skill path escaped its configured root",
    });
  });

  it("refuses non-UTF-8 skills and caps the output at max_skill_bytes on a character boundary", async () => {
    skill(userDir, "binary", Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]));
    skill(userDir, "long", `${"a".repeat(9)}é${"b".repeat(100)}`);
    const cfg = config({ max_skill_bytes: 10 });
    const skills = await discoverSkills(cfg, workspace);
    expect(await load(skills, "binary", cfg)).toMatchObject({ success: false, output: "skill is not UTF-8" });
    expect(await load(skills, "long", cfg)).toEqual({ success: true, truncated: true, output: "a".repeat(9) });
    const exact = config({ max_skill_bytes: 11 });
    expect(await load(await discoverSkills(exact, workspace), "long", exact)).toEqual({
      success: true,
      truncated: true,
      output: `${"a".repeat(9)}é`,
    });
  });
});

describe("skillsPromptSection", () => {
  it("lists skills exactly as spec §8.1 says, and nothing without skills", () => {
    const skills: Skill[] = [
      { name: "bisect", description: "Find the bad commit", root: "/r", path: "/r/bisect/SKILL.md" },
      { name: "deploy", description: "No description provided", root: "/r", path: "/r/deploy/SKILL.md" },
    ];
    expect(skillsPromptSection(skills)).toBe(
      "\n# Available skills\n- bisect: Find the bad commit\n- deploy: No description provided\n\nUse read_skill with a skill name when its workflow applies.\n",
    );
    expect(skillsPromptSection([])).toBe("");
  });
});
