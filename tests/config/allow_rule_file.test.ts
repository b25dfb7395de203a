// "Always" answers edit the user file's text: comments, blank lines and key order stay; the file is created 0600.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "smol-toml";
import { appendAllowRule, withAllowRule } from "../../lib/config/allow_rule_file.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function fileWith(text: string | undefined, mode = 0o600): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "scv-allow-"));
  dirs.push(dir);
  const path = join(dir, "config.toml");
  if (text !== undefined) await writeFile(path, text, { mode });
  return path;
}

const allowOf = (text: string) => (parse(text) as { permissions: { allow: string[] } }).permissions.allow;

describe("withAllowRule", () => {
  it("adds to a one-line array, an empty one, a multi-line one, and creates key and table", () => {
    const rule = "bash(npm test)";
    expect(withAllowRule('[permissions]\nallow = ["bash(ls)"] # mine\n', rule, "f")).toBe(
      '[permissions]\nallow = ["bash(ls)", "bash(npm test)"] # mine\n',
    );
    expect(withAllowRule("[permissions]\nallow = []\n", rule, "f")).toBe('[permissions]\nallow = ["bash(npm test)"]\n');
    expect(withAllowRule('[permissions]\nallow = [\n  "a", # first\n  "b" # second\n]\n', rule, "f")).toBe(
      '[permissions]\nallow = [\n  "a", # first\n  "b", # second\n  "bash(npm test)"\n]\n',
    );
    expect(withAllowRule('[permissions]\nallow = [\n  "a",\n]\n', rule, "f")).toBe(
      '[permissions]\nallow = [\n  "a",\n  "bash(npm test)",\n]\n',
    );
    expect(withAllowRule('[permissions] # rules\ndeny = ["bash(rm:*)"]\n', rule, "f")).toBe(
      '[permissions] # rules\nallow = ["bash(npm test)"]\ndeny = ["bash(rm:*)"]\n',
    );
    const appended = withAllowRule('# my config\n[tools]\napproval_policy = "on-risk"\n', rule, "f");
    expect(appended).toBe(
      '# my config\n[tools]\napproval_policy = "on-risk"\n\n[permissions]\nallow = ["bash(npm test)"]\n',
    );
  });

  it("keeps strings with brackets, quotes and # intact", () => {
    const text = '[permissions]\nallow = [\'edit(a]#b)\', "bash(echo \\"]\\")"]\n[tools]\ncode_mode = true\n';
    const edited = withAllowRule(text, 'bash(echo "x")', "f");
    expect(allowOf(edited)).toEqual(["edit(a]#b)", 'bash(echo "]")', 'bash(echo "x")']);
    expect(edited).toContain("[tools]\ncode_mode = true\n");
  });
});

describe("appendAllowRule", () => {
  it("creates the file 0600 when there is none", async () => {
    const path = await fileWith(undefined);
    await appendAllowRule(path, "bash(npm test)");
    expect(await readFile(path, "utf8")).toBe('[permissions]\nallow = ["bash(npm test)"]\n');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("keeps comments and the mode of an existing file, and adds a rule once", async () => {
    const path = await fileWith('# written by me\n[provider]\nmodel = "m" # the model\n');
    await appendAllowRule(path, "bash(git diff:*)");
    await appendAllowRule(path, "bash(git diff:*)");
    const text = await readFile(path, "utf8");
    expect(text).toBe(
      '# written by me\n[provider]\nmodel = "m" # the model\n\n[permissions]\nallow = ["bash(git diff:*)"]\n',
    );
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("refuses to touch a file that is not valid TOML", async () => {
    const path = await fileWith("[permissions\n");
    await expect(appendAllowRule(path, "bash(ls)")).rejects.toThrow(/not valid TOML; fix it first/);
    expect(await readFile(path, "utf8")).toBe("[permissions\n");
  });

  it("loses no rule when writers of this process answer at once", async () => {
    const path = await fileWith("[permissions]\nallow = []\n");
    const rules = Array.from({ length: 12 }, (_, index) => `bash(echo ${index})`);
    await Promise.all(rules.map((rule) => appendAllowRule(path, rule)));
    expect(allowOf(await readFile(path, "utf8")).sort()).toEqual([...rules].sort());
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("loses no rule when several processes answer at once", async () => {
    const path = await fileWith("# mine\n");
    const module = new URL("../../lib/config/allow_rule_file.ts", import.meta.url).pathname;
    const rules = Array.from({ length: 4 }, (_, index) => `bash(make target${index})`);
    const runs = rules.map((rule) =>
      new Promise<number | null>((resolve) => {
        const script = `import { appendAllowRule } from ${JSON.stringify(module)};\n` +
          `await appendAllowRule(${JSON.stringify(path)}, ${JSON.stringify(rule)});`;
        const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "inherit" });
        child.on("exit", resolve);
      })
    );
    expect(await Promise.all(runs)).toEqual(rules.map(() => 0));
    const text = await readFile(path, "utf8");
    expect(text.startsWith("# mine\n")).toBe(true);
    expect(allowOf(text).sort()).toEqual([...rules].sort());
  });

  it("waits for a lock another writer holds, and takes over one its dead writer left", async () => {
    const path = await fileWith("");
    await writeFile(`${path}.lock`, "123\n");
    let done = false;
    const appending = appendAllowRule(path, "bash(ls)").then(() => (done = true));
    // The writer waits while the lock is held: after many of its retries it still has not written.
    for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(done).toBe(false);
    expect(await readFile(path, "utf8")).toBe("");
    // The holder "dies": its lock ages past the stale limit, and the waiting writer takes over.
    const old = new Date(Date.now() - 3_600_000);
    await utimes(`${path}.lock`, old, old);
    await appending;
    expect(allowOf(await readFile(path, "utf8"))).toEqual(["bash(ls)"]);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});
