import { describe, expect, it } from "vitest";
import { isSecretLikePath, SECRET_PATH_RULES } from "../../lib/policy/secret_paths.ts";

describe("isSecretLikePath", () => {
  it.each([
    ".env",
    "a/.env.local",
    "k/id.pem",
    "credentials.txt",
    "config/.ENV",
    "deploy/Private_Key.txt",
    "ssl/server.KEY",
    "aws_credential/notes.md",
    ".env.production/x",
    // issue 12: the wider set
    ".ssh/config",
    "home/.ssh/known_hosts",
    ".ssh",
    "id_rsa",
    "keys/id_rsa.pub",
    "id_ecdsa",
    "x/ID_ED25519_sk",
    "id_dsa",
    ".npmrc",
    "pkg/.npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    ".git/config",
    "vendor/lib/.git/config",
    ".aws/config",
    ".docker/config.json",
    ".kube/config",
    "store.p12",
    "certs/client.PFX",
    "credentials.json",
    ".gnupg/pubring.kbx",
    ".pgpass",
  ])("flags %s", (path) => {
    expect(isSecretLikePath(path)).toBe(true);
  });

  it.each([
    "README.md",
    "src/env.ts",
    ".envrc",
    "a/.environment",
    "keys/notes.txt",
    "pem/readme",
    "key.txt",
    "keyboard.pemx",
    "git/config",
    ".git/HEAD",
    "config/.git",
    "docker/config.json",
    ".docker/daemon.json",
    "kube/config",
    "src/id.ts",
    "npmrc.md",
    "a.p12.txt",
  ])(
    "does not flag %s",
    (path) => {
      expect(isSecretLikePath(path)).toBe(false);
    },
  );
});

describe("SECRET_PATH_RULES", () => {
  it("is the documented table: docs/secrets.md lists every pattern", async () => {
    const { readFile } = await import("node:fs/promises");
    const docs = await readFile(new URL("../../docs/secrets.md", import.meta.url), "utf8");
    for (const rule of SECRET_PATH_RULES) expect(docs, rule.pattern).toContain(`| \`${rule.pattern}\` |`);
  });
});
