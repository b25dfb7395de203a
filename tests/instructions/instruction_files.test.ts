// The instruction files' rules in-process (issue 30): the global file, then each folder from the root down to the
// working folder (override, AGENTS.md, fallback names), the total byte cap with what it cut said, links that leave
// the root or reach a refused file, and the folders that join on first touch.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type InstructionSources,
  instructionsSection,
  loadInstructions,
  NestedInstructions,
} from "../../lib/instructions/index.ts";

let base: string;
let home: string;
let root: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "scv-instructions-")));
  home = path.join(base, "home");
  root = path.join(base, "repo");
  await mkdir(home);
  await mkdir(path.join(root, "a", "b"), { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const sources = (extra: Partial<InstructionSources> = {}): InstructionSources => ({
  home,
  root,
  workingFolder: path.join(root, "a", "b"),
  fallbackNames: [],
  maxBytes: 32768,
  ...extra,
});

const summary = async (extra: Partial<InstructionSources> = {}) =>
  (await loadInstructions(sources(extra))).map((file) => [path.relative(base, file.path), file.text]);

describe("loadInstructions", () => {
  it("reads the global file, then root to working folder, an override replacing its folder's AGENTS.md", async () => {
    await writeFile(path.join(home, "AGENTS.md"), "global");
    await writeFile(path.join(root, "AGENTS.md"), "root");
    await writeFile(path.join(root, "a", "AGENTS.md"), "a plain");
    await writeFile(path.join(root, "a", "AGENTS.override.md"), "a override");
    await writeFile(path.join(root, "a", "b", "AGENTS.md"), "b");
    expect(await summary()).toEqual([
      ["home/AGENTS.md", "global"],
      ["repo/AGENTS.md", "root"],
      ["repo/a/AGENTS.override.md", "a override"],
      ["repo/a/b/AGENTS.md", "b"],
    ]);
  });

  it("reads a fallback name only where a folder has no AGENTS.md, the first one found", async () => {
    await writeFile(path.join(root, "CLAUDE.md"), "root claude");
    await writeFile(path.join(root, "AGENTS.md"), "root agents");
    await writeFile(path.join(root, "a", "CLAUDE.md"), "a claude");
    await writeFile(path.join(root, "a", "GEMINI.md"), "a gemini");
    await writeFile(path.join(root, "a", "b", "GEMINI.md"), "b gemini");
    expect(await summary({ fallbackNames: ["CLAUDE.md", "GEMINI.md"] })).toEqual([
      ["repo/AGENTS.md", "root agents"],
      ["repo/a/CLAUDE.md", "a claude"],
      ["repo/a/b/GEMINI.md", "b gemini"],
    ]);
    expect(await summary()).toEqual([["repo/AGENTS.md", "root agents"]]);
  });

  it("bounds the total: the file that crosses the cap is cut at a character, later ones left out, both said", async () => {
    await writeFile(path.join(root, "AGENTS.md"), "123456");
    await writeFile(path.join(root, "a", "AGENTS.md"), "abcé and more");
    await writeFile(path.join(root, "a", "b", "AGENTS.md"), "never");
    const files = await loadInstructions(sources({ maxBytes: 10 }));
    expect(files.map((file) => [file.text, file.bytes, file.size, file.truncated])).toEqual([
      ["123456", 6, 6, false],
      ["abc", 3, 14, true],
      ["", 0, 5, true],
    ]);
    const section = instructionsSection(files, 10);
    expect(section).toContain(`\n## ${path.join(root, "AGENTS.md")}\n123456\n`);
    expect(section).toContain(
      `[${path.join(root, "a", "AGENTS.md")} cut by project_doc_max_bytes = 10: 3 of 14 bytes kept]`,
    );
    expect(section).toContain(`[${path.join(root, "a", "b", "AGENTS.md")} left out: project_doc_max_bytes = 10`);
    expect(section).not.toContain("never");
  });

  it("follows a link inside the root (a folder named ..notes included) and refuses one that leaves it", async () => {
    await mkdir(path.join(root, "..notes"));
    await writeFile(path.join(root, "..notes", "guide.md"), "Use tabs.");
    await symlink(path.join("..notes", "guide.md"), path.join(root, "AGENTS.md"));
    await writeFile(path.join(base, "outside.md"), "secret");
    await symlink(path.join(base, "outside.md"), path.join(root, "a", "AGENTS.md"));
    expect(await summary()).toEqual([["repo/AGENTS.md", "Use tabs."]]);
  });

  it("treats a refused file as absent, so the next name is read", async () => {
    await writeFile(path.join(root, ".env"), "API_KEY=sk-live");
    await symlink(".env", path.join(root, "AGENTS.md"));
    await writeFile(path.join(root, "CLAUDE.md"), "claude");
    const refuses = (real: string) => path.basename(real) === ".env";
    expect(await summary({ refuses, fallbackNames: ["CLAUDE.md"] })).toEqual([["repo/CLAUDE.md", "claude"]]);
  });
});

describe("NestedInstructions", () => {
  it("joins a folder's file below the working folder on first touch, once, and never the chain's own", async () => {
    await writeFile(path.join(root, "AGENTS.md"), "root");
    await mkdir(path.join(root, "pkg", "src"), { recursive: true });
    await writeFile(path.join(root, "pkg", "AGENTS.md"), "pkg rules");
    await writeFile(path.join(root, "pkg", "src", "AGENTS.md"), "src rules");
    const nested = new NestedInstructions(sources({ workingFolder: root }));
    const first = await nested.touched([path.join(root, "pkg", "src", "main.ts")]);
    expect(first.map((file) => [path.relative(root, file.path), file.text, file.scope])).toEqual([
      ["pkg/AGENTS.md", "pkg rules", "nested"],
      ["pkg/src/AGENTS.md", "src rules", "nested"],
    ]);
    expect(await nested.touched([path.join(root, "pkg", "other.ts"), path.join(root, "AGENTS.md")])).toEqual([]);
    expect(await nested.touched([path.join(base, "elsewhere", "x.ts")])).toEqual([]);
  });

  it("counts a touched folder itself, and nothing above the working folder", async () => {
    await writeFile(path.join(root, "a", "AGENTS.md"), "a rules");
    await mkdir(path.join(root, "a", "b", "c"));
    await writeFile(path.join(root, "a", "b", "c", "AGENTS.md"), "c rules");
    const nested = new NestedInstructions(sources());
    expect(await nested.touched([path.join(root, "a", "x.ts")])).toEqual([]);
    const joined = await nested.touched([path.join(root, "a", "b", "c")]);
    expect(joined.map((file) => file.text)).toEqual(["c rules"]);
  });
});
