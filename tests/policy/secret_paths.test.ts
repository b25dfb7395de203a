import { readFile } from "node:fs/promises";
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
    "deploy/credentials.sh",
    "credentials.ts.bak",
    "private_key.rs.txt",
    ".gnupg/pubring.kbx",
    ".pgpass",
    // issue 26 item 5
    ".envrc",
    "app/.ENVRC",
    ".env-production",
    "deploy/.env_staging",
    "infra/prod.tfvars",
    "infra/prod.auto.tfvars.json",
    "terraform.tfstate",
    "state/terraform.tfstate.backup",
    ".vault-token",
    ".config/gh/hosts.yml",
    "home/.config/gh/hosts.yml",
    "android/release.jks",
    "certs/app.keystore",
    "site/.htpasswd",
    ".bash_history",
    ".zsh_history",
    ".sh_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".local/share/fish/fish_history",
  ])("flags %s", (path) => {
    expect(isSecretLikePath(path)).toBe(true);
  });

  it.each([
    "README.md",
    "src/env.ts",
    "envrc.md",
    "src/tfvars.ts",
    "docs/keystore.md",
    "gh/hosts.yml",
    ".config/hosts.yml",
    "history.md",
    "bash_history.ts",
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
    // Program source about credentials: the command sandbox must not hide a project's own code from its build.
    "lib/config/credential.ts",
    "src/CredentialProvider.java",
    "auth/private_key_test.go",
    "pkg/credentials.py",
  ])(
    "does not flag %s",
    (path) => {
      expect(isSecretLikePath(path)).toBe(false);
    },
  );
});

describe("SECRET_PATH_RULES", () => {
  it("is the documented table: docs/secrets.md lists every pattern", async () => {
    const docs = await readFile(new URL("../../docs/secrets.md", import.meta.url), "utf8");
    for (const rule of SECRET_PATH_RULES) expect(docs, rule.pattern).toContain(`| \`${rule.pattern}\` |`);
  });

  it("is quoted in docs/security.md: every pattern of every rule is named there", async () => {
    const docs = await readFile(new URL("../../docs/security.md", import.meta.url), "utf8");
    const section = docs.slice(docs.indexOf("## Secret-like paths"), docs.indexOf("## Commands"));
    for (const rule of SECRET_PATH_RULES) {
      for (const pattern of rule.pattern.split(", ")) expect(section, pattern).toContain(`\`${pattern}\``);
    }
  });
});
