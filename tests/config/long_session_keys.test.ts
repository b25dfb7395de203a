// The configuration keys of issue 31: `[compaction]`, `[snapshots]`, `session.max_cost_usd` (and `--max-cost`) and
// `[model_prices."<model>"]`, with what the untrusted project file may do with them.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";
import { expectConfigError, load } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("issue 31 keys", () => {
  it("default to compaction at 85 %, snapshots on under 10 MiB, no budget and no extra prices", async () => {
    const config = await load(sandbox);
    expect(config.compaction).toEqual({ auto_percent: 85, keep_turns: 2, summary_max_chars: 24000 });
    expect(config.snapshots).toEqual({ enabled: true, max_file_bytes: 10485760, max_files: 50000 });
    expect(config.session.max_cost_usd).toBeUndefined();
    expect(config.model_prices).toEqual({});
  });

  it("read prices and budgets as decimals, cached_input defaulting to input; the flag wins", async () => {
    await sandbox.writeUserConfig(
      '[session]\nmax_cost_usd = 2.5\n\n[model_prices."my-model"]\ninput = 0.4\noutput = 1.6\n\n' +
        '[model_prices."other"]\ninput = 3\ncached_input = 0.3\noutput = 15\ncache_write = 3.75\n',
    );
    const config = await load(sandbox);
    expect(config.session.max_cost_usd).toBe(2.5);
    expect(config.model_prices).toEqual({
      "my-model": { input: 0.4, cached_input: 0.4, output: 1.6 },
      other: { input: 3, cached_input: 0.3, output: 15, cache_write: 3.75 },
    });
    expect((await load(sandbox, { overrides: { max_cost_usd: 0.5 } })).session.max_cost_usd).toBe(0.5);
  });

  it("refuse a negative budget, a price without input or output, and auto_percent over 100", async () => {
    await sandbox.writeUserConfig("[session]\nmax_cost_usd = -1\n");
    await expectConfigError(
      load(sandbox),
      `parse configuration ${sandbox.home}/config.toml: invalid value for session.max_cost_usd`,
    );
    await sandbox.writeUserConfig('[model_prices."m"]\ninput = 1\n');
    await expectConfigError(load(sandbox), 'model_prices."m" needs input and output (USD per million tokens)');
    await sandbox.writeUserConfig("[compaction]\nauto_percent = 101\n");
    await expectConfigError(load(sandbox), "compaction.auto_percent must be at most 100");
  });

  it("let a project set or lower a budget but not raise it, and never price models or switch snapshots off", async () => {
    await sandbox.writeProjectConfig("[session]\nmax_cost_usd = 1\n");
    expect((await load(sandbox)).session.max_cost_usd).toBe(1);
    await sandbox.writeUserConfig("[session]\nmax_cost_usd = 0.5\n");
    await expectConfigError(load(sandbox), "project configuration cannot raise session.max_cost_usd");
    await sandbox.writeProjectConfig('[model_prices."gpt-5"]\ninput = 0\noutput = 0\n');
    const project = `${sandbox.workspace}/.scv/config.toml`;
    await expectConfigError(load(sandbox), `project configuration ${project} cannot set [model_prices]`);
    await sandbox.writeProjectConfig("[snapshots]\nenabled = false\n");
    await expectConfigError(load(sandbox), `project configuration ${project} cannot set [snapshots]`);
  });
});
