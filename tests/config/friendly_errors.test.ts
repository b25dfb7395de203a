// Config errors a user can act on: the nearest known key, the allowed values, TOML syntax in plain
// words with line and column, and upstream scv keys that a shared ~/.scv may hold.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findUnterminatedString } from "../../lib/config/toml_error.ts";
import { editDistance, nearestName } from "../../lib/util/nearest.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { expectConfigError, load } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});
const userFile = () => join(sandbox.home, "config.toml");

describe("unknown keys suggest the nearest known key of their table", () => {
  it.each([
    ['[providers.local]\nmodle = "x"\n', "providers.local.modle", "model"],
    ['[tools]\napproval_polciy = "always"\n', "tools.approval_polciy", "approval_policy"],
    ["[web]\nenabeld = false\n", "web.enabeld", "enabled"],
    ["[contxt]\nmax_tokens = 1000\n", "contxt", "context"],
  ])("%j", async (toml, dotted, suggestion) => {
    await sandbox.writeUserConfig(toml);
    await expectConfigError(
      load(sandbox),
      `parse configuration ${userFile()}: unknown key ${dotted}; did you mean ${suggestion}?`,
    );
  });

  it("a key close to nothing gets no guess, and a key of another table is not suggested", async () => {
    await sandbox.writeUserConfig("[tools]\ntelemetry = true\n");
    await expectConfigError(load(sandbox), `parse configuration ${userFile()}: unknown key tools.telemetry`);
    // `max_steps` lives in [agent], not in [tools].
    await sandbox.writeUserConfig("[tools]\nmax_steps = 3\n");
    await expectConfigError(load(sandbox), `parse configuration ${userFile()}: unknown key tools.max_steps`);
  });

  it("nearestName and editDistance", () => {
    expect(editDistance("modle", "model")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(nearestName("modle", ["model", "mode", "module"])).toBe("model");
    expect(nearestName("zzz", ["model", "kind"])).toBeUndefined();
  });
});

describe("TOML syntax errors say what is wrong, where", () => {
  it("an unterminated string names its line and column, not the key rule", async () => {
    await sandbox.writeUserConfig('[agent]\nmax_steps = 3\nsystem_prompt = "be brief\n');
    const error = await load(sandbox).catch((caught: Error) => caught);
    expect((error as Error).message).toBe(
      `parse configuration ${userFile()}: unterminated string at line 3, column 17 (close it with the same quote on that line)`,
    );
    expect((error as Error).message).not.toContain("only letter");
    expect((error as Error).message).not.toContain("be brief");
  });

  it("a key defined twice", async () => {
    await sandbox.writeUserConfig("[agent]\nmax_steps = 3\nmax_steps = 4\n");
    await expectConfigError(
      load(sandbox),
      `parse configuration ${userFile()}: a key or table is defined twice at line 3, column 1`,
    );
  });

  it("findUnterminatedString skips comments, escapes and multi-line strings", () => {
    expect(findUnterminatedString('a = "x\\"y" # "open\nb = \'c\'')).toBeUndefined();
    expect(findUnterminatedString('a = """\nstill "open\n"""\nb = "x')).toEqual({ line: 4, column: 5 });
    expect(findUnterminatedString("a = 'it''s")).toEqual({ line: 1, column: 9 });
  });
});

describe("upstream scv keys that scv does not use are accepted", () => {
  it("[notify], agent.on_busy and agent.max_queued_turns load", async () => {
    await sandbox.writeUserConfig(
      '[agent]\nmax_steps = 9\non_busy = "queue"\nmax_queued_turns = 4\n\n[notify]\nowner = ["wechat:default"]\n',
    );
    expect((await load(sandbox)).agent.max_steps).toBe(9);
  });

  it("their types are still checked", async () => {
    await sandbox.writeUserConfig('[agent]\nmax_queued_turns = "many"\n');
    await expectConfigError(
      load(sandbox),
      `parse configuration ${userFile()}: invalid value for agent.max_queued_turns`,
    );
  });
});
