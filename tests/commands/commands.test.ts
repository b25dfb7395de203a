// Custom commands in-process (issue 30): front matter, `$ARGUMENTS` and `$1`…`$9`, discovery from both folders with
// subfolders as `folder:name`, the project winning a clash, links that leave a folder, and the typed `/name args`.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverCommands, expandCommand, splitFrontMatter } from "../../lib/commands/index.ts";
import { slashCommand } from "../../lib/protocol/index.ts";

let base: string;
let user: string;
let project: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "scv-commands-")));
  user = path.join(base, "home", "commands");
  project = path.join(base, "repo", ".scv", "commands");
  await mkdir(user, { recursive: true });
  await mkdir(project, { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("front matter", () => {
  it("reads description and argument-hint, quoted or not, and leaves the body", () => {
    const file = splitFrontMatter(
      '---\ndescription: "Review a file: carefully"\nargument-hint: <file> [focus]\nmodel: x\n---\nReview $1.\n',
    );
    expect(file.fields).toEqual({
      description: "Review a file: carefully",
      "argument-hint": "<file> [focus]",
      model: "x",
    });
    expect(file.body).toBe("Review $1.\n");
  });

  it("is optional", () => {
    expect(splitFrontMatter("Just a prompt\n---\nnot front matter\n")).toEqual({
      fields: {},
      body: "Just a prompt\n---\nnot front matter\n",
    });
  });
});

describe("expandCommand", () => {
  it("puts all arguments at $ARGUMENTS and each word (quotes grouping) at $1…$9", () => {
    expect(expandCommand("Fix $1 in $2; context: $ARGUMENTS; none: [$3]", 'bug-12 "src/a b.ts"')).toBe(
      'Fix bug-12 in src/a b.ts; context: bug-12 "src/a b.ts"; none: []',
    );
  });

  it("adds the arguments on their own line when the body names no placeholder", () => {
    expect(expandCommand("Write the release notes.\n", "v2.1")).toBe("Write the release notes.\n\nARGUMENTS: v2.1");
    expect(expandCommand("Write the release notes.\n", "  ")).toBe("Write the release notes.\n");
  });
});

describe("discoverCommands", () => {
  it("lists both folders with subfolders as folder:name, the project winning a clash", async () => {
    await writeFile(path.join(user, "review.md"), "---\ndescription: user review\n---\nUser review of $ARGUMENTS");
    await writeFile(path.join(user, "notes.md"), "Notes");
    await mkdir(path.join(project, "frontend"));
    await writeFile(path.join(project, "frontend", "component.md"), "Make a component $1");
    await writeFile(path.join(project, "review.md"), "---\nargument-hint: <file>\n---\nProject review of $1");
    await writeFile(path.join(project, "README.txt"), "not a command");
    const commands = await discoverCommands({ user, project });
    expect(commands.map(({ name, origin, overrides, description, argumentHint }) => ({
      name,
      origin,
      overrides,
      description,
      argumentHint,
    }))).toEqual([
      {
        name: "frontend:component",
        origin: "project",
        overrides: undefined,
        description: undefined,
        argumentHint: undefined,
      },
      { name: "notes", origin: "user", overrides: undefined, description: undefined, argumentHint: undefined },
      { name: "review", origin: "project", overrides: true, description: undefined, argumentHint: "<file>" },
    ]);
    expect(commands.find((command) => command.name === "review")!.body).toBe("Project review of $1");
  });

  it("does not follow a link out of the commands folder, and skips a missing folder", async () => {
    await writeFile(path.join(base, "outside.md"), "secret prompt");
    await symlink(path.join(base, "outside.md"), path.join(project, "leak.md"));
    await writeFile(path.join(project, "inside.md"), "ok");
    await symlink("inside.md", path.join(project, "alias.md"));
    const commands = await discoverCommands({ user: path.join(base, "missing"), project });
    expect(commands.map((command) => command.name)).toEqual(["alias", "inside"]);
  });
});

describe("slashCommand", () => {
  it("takes /name and what follows when the name is listed, and nothing else", () => {
    expect(slashCommand("/review  src/a.ts quickly ", ["review"])).toEqual({
      name: "review",
      arguments: "src/a.ts quickly",
    });
    expect(slashCommand("/frontend:component Button", ["frontend:component"])).toEqual({
      name: "frontend:component",
      arguments: "Button",
    });
    expect(slashCommand("/usr/bin/env is missing", ["review"])).toBeUndefined();
    expect(slashCommand("review this", ["review"])).toBeUndefined();
  });
});
