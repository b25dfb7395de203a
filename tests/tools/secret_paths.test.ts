import { describe, expect, it } from "vitest";
import { isSecretLikePath } from "../../lib/tools/secret_paths.ts";

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
  ])("flags %s", (path) => {
    expect(isSecretLikePath(path)).toBe(true);
  });

  it.each(["README.md", "src/env.ts", ".envrc", "a/.environment", "keys/notes.txt", "pem/readme", "key.txt", "keyboard.pemx"])(
    "does not flag %s",
    (path) => {
      expect(isSecretLikePath(path)).toBe(false);
    },
  );
});
