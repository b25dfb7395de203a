// Reading one file: the permission rule comes before any read, parse errors name file and line
// but never echo the line, the 1 MiB cap, fatal UTF-8 decoding.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfigSandbox, createConfigSandbox, writeConfigFile } from "../support/config_files.ts";
import { expectConfigError, expectConfigErrorPrefix, load } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("permission rule", () => {
  it("is checked before the file is parsed (a broken 0644 file reports the mode)", async () => {
    await sandbox.writeUserConfig("this is = = not toml", 0o644);
    await expectConfigError(
      load(sandbox),
      `user configuration is readable by group or others; run chmod 600 ${join(sandbox.home, "config.toml")}`,
    );
  });

  it("is checked before the size cap", async () => {
    const path = await sandbox.writeExplicitConfig(`# ${"x".repeat(2 * 1024 * 1024)}`, 0o640);
    await expectConfigError(
      load(sandbox, { explicitConfigPath: path }),
      `explicit configuration is readable by group or others; run chmod 600 ${path}`,
    );
  });

  it("accepts 0600 and 0400", async () => {
    await sandbox.writeUserConfig("[agent]\nmax_steps = 5\n", 0o400);
    expect((await load(sandbox)).agent.max_steps).toBe(5);
  });

  it("a FIFO is refused as not a regular file, without blocking", async () => {
    const fifo = join(sandbox.root, "fifo.toml");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    await expectConfigError(
      load(sandbox, { explicitConfigPath: fifo }),
      `read configuration ${fifo}: not a regular file`,
    );
  });
});

describe("size cap", () => {
  it("exactly 1 MiB is accepted", async () => {
    const body = "[agent]\nmax_steps = 6\n";
    await sandbox.writeUserConfig(body + "#".repeat(1024 * 1024 - body.length - 1) + "\n");
    expect((await load(sandbox)).agent.max_steps).toBe(6);
  });

  it("one byte more is refused", async () => {
    await sandbox.writeUserConfig("#".repeat(1024 * 1024) + "\n");
    await expectConfigError(load(sandbox), `configuration ${join(sandbox.home, "config.toml")} exceeds 1 MiB`);
  });
});

describe("parse errors", () => {
  const secret = "sk-live-0123456789abcdef";

  it("name the file and the line, never the line's text or a secret", async () => {
    await sandbox.writeUserConfig(`[provider]\napi_key = "${secret}"\nmodel = "m" trailing ${secret}\n`);
    const error = await expectConfigErrorPrefix(
      load(sandbox),
      `parse configuration ${join(sandbox.home, "config.toml")}: `,
    );
    expect(error.message).toContain("line 3");
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain("trailing");
    expect(error.message).not.toContain("\n");
  });

  it("an unterminated string holding a secret is not echoed", async () => {
    await sandbox.writeUserConfig(`[provider]\napi_key = "${secret}\n`);
    const error = await expectConfigErrorPrefix(
      load(sandbox),
      `parse configuration ${join(sandbox.home, "config.toml")}: `,
    );
    expect(error.message).toContain("line 2");
    expect(error.message).not.toContain(secret);
  });

  it("a duplicate key names its line", async () => {
    await sandbox.writeUserConfig("[agent]\nmax_steps = 1\n\nmax_steps = 2\n");
    const error = await expectConfigErrorPrefix(load(sandbox), "parse configuration ");
    expect(error.message).toContain("line 4");
  });

  it("invalid UTF-8 is fatal and names its line", async () => {
    const bytes = Buffer.concat([
      Buffer.from('[provider]\napi_key = "'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"\n'),
    ]);
    await writeConfigFile(join(sandbox.home, "config.toml"), bytes);
    await expectConfigError(
      load(sandbox),
      `parse configuration ${join(sandbox.home, "config.toml")}: invalid UTF-8 at line 2`,
    );
  });

  it("valid multi-byte UTF-8 and a BOM are fine", async () => {
    await writeConfigFile(
      join(sandbox.home, "config.toml"),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[agent]\nsystem_prompt = "Grüße, 世界"\n')]),
    );
    expect((await load(sandbox)).agent.system_prompt).toBe("Grüße, 世界");
  });

  it("integers beyond 2^53 are invalid values, not rounded", async () => {
    await sandbox.writeUserConfig("[session]\nmax_history_bytes = 9007199254740993\n");
    await expectConfigError(
      load(sandbox),
      `parse configuration ${join(sandbox.home, "config.toml")}: invalid value for session.max_history_bytes`,
    );
  });

  it("dates are invalid values for strings", async () => {
    await sandbox.writeUserConfig("[provider]\nmodel = 1979-05-27\n");
    await expectConfigError(
      load(sandbox),
      `parse configuration ${join(sandbox.home, "config.toml")}: invalid value for provider.model`,
    );
  });
});
