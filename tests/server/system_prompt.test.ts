// The system prompt's AGENTS.md rules in-process (spec §8.1): only a file inside the workspace, bounded by
// tools.max_read_bytes without splitting a character.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../lib/server/system_prompt.ts";

let root: string;
let workspace: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), "scv-system-prompt-")));
  workspace = path.join(root, "workspace");
  await mkdir(workspace);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const build = (maxReadBytes = 1024) => buildSystemPrompt({ systemPrompt: "Be brief.", workspace, maxReadBytes });

describe("buildSystemPrompt", () => {
  it("follows an AGENTS.md link to a directory inside the workspace whose name starts with two dots", async () => {
    await mkdir(path.join(workspace, "..notes"));
    await writeFile(path.join(workspace, "..notes", "guide.md"), "Use tabs.");
    await symlink(path.join("..notes", "guide.md"), path.join(workspace, "AGENTS.md"));
    expect(await build()).toBe(
      `Be brief.\nCurrent working directory: ${workspace}\n\n# Project instructions\nUse tabs.`,
    );
  });

  it("ignores an AGENTS.md that links to a sibling of the workspace", async () => {
    await writeFile(path.join(root, "outside.md"), "secret");
    await symlink(path.join("..", "outside.md"), path.join(workspace, "AGENTS.md"));
    expect(await build()).toBe(`Be brief.\nCurrent working directory: ${workspace}\n`);
  });

  it("cuts AGENTS.md at the read limit without splitting a character", async () => {
    await writeFile(path.join(workspace, "AGENTS.md"), "abcé and more");
    expect(await build(4)).toBe(
      `Be brief.\nCurrent working directory: ${workspace}\n\n# Project instructions\nabc\n[AGENTS.md truncated by configured read limit]\n`,
    );
  });
});
