// Paths that probably hold credentials: touching them needs approval even under `on-risk`.
// SECRET_PATH_RULES is the one list: docs/secrets.md quotes it as a table and docs/security.md names every pattern
// (tests/tools/secret_paths.test.ts keeps all three in step); matching is on lowercased components.

export type SecretPathRule = {
  /** How the rule reads in the docs. */
  pattern: string;
  /** What kind of credential it usually holds. */
  holds: string;
  /** True when the lowercased components of a path, from `index` on, match the rule. */
  matches(components: readonly string[], index: number): boolean;
};

const name = (test: (component: string) => boolean) => (components: readonly string[], index: number) =>
  test(components[index]!);
/** A run of consecutive components, e.g. `.git` then `config`. */
const run = (...parts: string[]) => (components: readonly string[], index: number) =>
  parts.every((part, offset) => components[index + offset] === part);
/** A directory: the component itself and everything below it. */
const directory = (dir: string) => (components: readonly string[], index: number) => components[index] === dir;

/**
 * Extensions of program source. A file so named holds code about credentials (`credential.ts`,
 * `private_key_test.go`), not credentials: the name-substring rules pass it by, so the command sandbox does not hide
 * a project's own source from its build (and reading it asks nothing). Shell scripts and notes are not on the list.
 */
const SOURCE_EXTENSIONS = new Set(
  ("c cc cjs clj cpp cs cts dart erl ex exs fs go h hpp hs java js jsx kt kts lua m mjs mm mts php py rb rs scala " +
    "svelte swift ts tsx vue zig").split(" "),
);

/** True when the component's extension (after its last dot, not a leading one) names program source. */
function isSource(component: string): boolean {
  const dot = component.lastIndexOf(".");
  return dot > 0 && SOURCE_EXTENSIONS.has(component.slice(dot + 1));
}

/** Shell and REPL history files, where passwords typed on command lines end up. */
const SHELL_HISTORIES = new Set([
  ".bash_history",
  ".zsh_history",
  ".sh_history",
  ".python_history",
  ".node_repl_history",
  ".psql_history",
  ".mysql_history",
  "fish_history",
]);

export const SECRET_PATH_RULES: readonly SecretPathRule[] = [
  {
    pattern: ".env, .env.*, .env-*, .env_*",
    holds: "environment secrets",
    matches: name((c) => c === ".env" || [".env.", ".env-", ".env_"].some((prefix) => c.startsWith(prefix))),
  },
  { pattern: ".envrc", holds: "direnv environments", matches: name((c) => c === ".envrc") },
  {
    pattern: "*credential*",
    holds: "credentials (.git-credentials, credentials.json, …); not program source such as credentials.ts",
    matches: name((c) => c.includes("credential") && !isSource(c)),
  },
  {
    pattern: "*private_key*",
    holds: "private keys; not program source such as private_key_test.go",
    matches: name((c) => c.includes("private_key") && !isSource(c)),
  },
  {
    pattern: "*.pem, *.key",
    holds: "TLS and SSH keys",
    matches: name((c) => c.endsWith(".pem") || c.endsWith(".key")),
  },
  {
    pattern: "*.p12, *.pfx",
    holds: "PKCS #12 key stores",
    matches: name((c) => c.endsWith(".p12") || c.endsWith(".pfx")),
  },
  {
    pattern: "id_rsa*, id_dsa*, id_ecdsa*, id_ed25519*",
    holds: "SSH identities",
    matches: name((c) => ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"].some((prefix) => c.startsWith(prefix))),
  },
  { pattern: ".ssh/", holds: "SSH keys and configuration", matches: directory(".ssh") },
  { pattern: ".gnupg/", holds: "GnuPG keys", matches: directory(".gnupg") },
  { pattern: ".aws/", holds: "AWS credentials", matches: directory(".aws") },
  { pattern: ".npmrc", holds: "npm registry tokens", matches: name((c) => c === ".npmrc") },
  { pattern: ".pypirc", holds: "PyPI tokens", matches: name((c) => c === ".pypirc") },
  {
    pattern: ".netrc, _netrc",
    holds: "HTTP and FTP passwords",
    matches: name((c) => c === ".netrc" || c === "_netrc"),
  },
  { pattern: ".pgpass", holds: "PostgreSQL passwords", matches: name((c) => c === ".pgpass") },
  { pattern: ".git/config", holds: "remotes with tokens in their URLs", matches: run(".git", "config") },
  { pattern: ".docker/config.json", holds: "registry logins", matches: run(".docker", "config.json") },
  { pattern: ".kube/config", holds: "cluster credentials", matches: run(".kube", "config") },
  {
    pattern: "*.tfvars, *.tfvars.json",
    holds: "Terraform variables",
    matches: name((c) => c.endsWith(".tfvars") || c.endsWith(".tfvars.json")),
  },
  {
    pattern: "*.tfstate, *.tfstate.backup",
    holds: "Terraform state, with every secret it manages",
    matches: name((c) => c.endsWith(".tfstate") || c.endsWith(".tfstate.backup")),
  },
  { pattern: ".vault-token", holds: "HashiCorp Vault tokens", matches: name((c) => c === ".vault-token") },
  { pattern: ".config/gh/hosts.yml", holds: "GitHub CLI tokens", matches: run(".config", "gh", "hosts.yml") },
  {
    pattern: "*.jks, *.keystore",
    holds: "Java key stores",
    matches: name((c) => c.endsWith(".jks") || c.endsWith(".keystore")),
  },
  { pattern: ".htpasswd", holds: "HTTP password hashes", matches: name((c) => c === ".htpasswd") },
  {
    pattern: ".bash_history, .zsh_history, .sh_history, .python_history, .node_repl_history, .psql_history, " +
      ".mysql_history, fish_history",
    holds: "shell and REPL histories (passwords typed on command lines)",
    matches: name((c) => SHELL_HISTORIES.has(c)),
  },
];

/** True when a workspace-relative `path` matches a rule of SECRET_PATH_RULES. */
export function isSecretLikePath(path: string): boolean {
  const components = path
    .split("/")
    .filter((component) => component !== "" && component !== ".")
    .map((component) => component.toLowerCase());
  for (let index = 0; index < components.length; index += 1) {
    for (const rule of SECRET_PATH_RULES) if (rule.matches(components, index)) return true;
  }
  return false;
}
