// Trusted folders (issue 30): the nearest listed folder decides, and the user file is edited as text so that its
// comments and layout stay (Codex's `[projects."<path>"] trust_level`).
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { trustLevel } from "../../lib/config/index.ts";
import { withTrust } from "../../lib/config/trust.ts";

describe("trustLevel", () => {
  it("takes the nearest listed folder at or above the workspace", () => {
    const projects = {
      "/work": { trust_level: "trusted" as const },
      "/work/vendor": { trust_level: "untrusted" as const },
    };
    expect(trustLevel(projects, "/work/app")).toBe("trusted");
    expect(trustLevel(projects, "/work/vendor/lib")).toBe("untrusted");
    expect(trustLevel(projects, "/elsewhere")).toBeUndefined();
    expect(trustLevel(projects, "/workshop")).toBeUndefined();
  });
});

describe("withTrust", () => {
  const file = `# my settings\nmodel_note = "keep"\n\n[tools]\n# be careful\napproval_policy = "always"\n`;

  it("adds the table at the end and keeps everything before it", () => {
    const edited = withTrust(file, "/src/a b", "trusted");
    expect(edited).toBe(`${file}\n[projects."/src/a b"]\ntrust_level = "trusted"\n`);
    expect(parse(edited).projects).toEqual({ "/src/a b": { trust_level: "trusted" } });
  });

  it("changes the value of an existing entry in place, its comment kept", () => {
    const listed = `${file}\n[projects."/src/app"] # work\ntrust_level = 'untrusted' # for now\nnote = 1\n`;
    const edited = withTrust(listed, "/src/app", "trusted");
    expect(edited).toBe(`${file}\n[projects."/src/app"] # work\ntrust_level = "trusted" # for now\nnote = 1\n`);
  });

  it("adds the key to an entry that has none, and leaves other projects alone", () => {
    const listed = `[projects.'/src/other']\ntrust_level = "trusted"\n\n[projects."/src/app"]\n`;
    const edited = withTrust(listed, "/src/app", "untrusted");
    expect(parse(edited).projects).toEqual({
      "/src/other": { trust_level: "trusted" },
      "/src/app": { trust_level: "untrusted" },
    });
  });
});
