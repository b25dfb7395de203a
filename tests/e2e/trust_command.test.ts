// `scv trust` through the real CLI (issue 30): it records the workspace scv would use (the repository root) in the
// user file, keeping the file's comments and mode, creating it 0600 when missing; `--revoke` takes trust back.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";

const harness = useCliHarness();
const userFile = () => join(harness.sandbox.home, "config.toml");

describe("scv trust", () => {
  it("creates the user file 0600 and trusts the repository root from a subfolder", async () => {
    const repo = join(harness.sandbox.workspace, "repo");
    await mkdir(join(repo, ".git"), { recursive: true });
    await mkdir(join(repo, "src"));
    const result = await harness.start(["trust"], { cwd: join(repo, "src") }).done;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Trusted ${repo} (the repository root of ${join(repo, "src")})`);
    expect(await readFile(userFile(), "utf8")).toBe(`[projects.${JSON.stringify(repo)}]\ntrust_level = "trusted"\n`);
    expect((await stat(userFile())).mode & 0o777).toBe(0o600);
  });

  it("keeps the user's comments, and --revoke changes the same line", async () => {
    const original = '# mine\n[tools]\napproval_policy = "always" # careful\n';
    await harness.sandbox.writeUserConfig(original);
    const workspace = harness.sandbox.workspace;
    expect((await harness.start(["trust", workspace]).done).code).toBe(0);
    expect((await harness.start(["trust", "--revoke", workspace]).done).code).toBe(0);
    expect(await readFile(userFile(), "utf8")).toBe(
      `${original}\n[projects.${JSON.stringify(workspace)}]\ntrust_level = "untrusted"\n`,
    );
  });

  it("refuses a path that is not a folder, and a user file it cannot parse", async () => {
    const missing = await harness.start(["trust", join(harness.sandbox.root, "nope")]).done;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("is not a folder");
    await writeFile(userFile(), "[tools\n", { mode: 0o600 });
    const broken = await harness.start(["trust"]).done;
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("is not valid TOML; fix it first");
    expect(await readFile(userFile(), "utf8")).toBe("[tools\n");
  });
});
