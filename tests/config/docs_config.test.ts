// docs/configuration.md's key reference is generated from the schema; this fails when they drift.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT_SPEC } from "../../lib/config/schema.ts";
import { BEGIN, DOC_PATH, END, renderReference, spliceGenerated } from "../../scripts/docs_config.ts";

describe("docs/configuration.md", () => {
  const committed = readFileSync(DOC_PATH, "utf8");

  it("describes every key of the schema, and only those", () => {
    const { missing, unknown } = renderReference();
    expect(missing).toEqual([]);
    expect(unknown).toEqual([]);
  });

  it("holds exactly what npm run docs:config generates from the schema", () => {
    expect(committed).toContain(BEGIN);
    expect(committed).toContain(END);
    expect(spliceGenerated(committed, renderReference().text)).toBe(committed);
  });

  it("lists every table and key of the schema", () => {
    for (const [key, spec] of Object.entries(ROOT_SPEC.keys)) {
      if (spec.kind === "table") {
        for (const inner of Object.keys(spec.keys)) expect(committed).toContain(`| \`${key}.${inner}\` |`);
      } else {
        expect(committed).toContain(`| \`${key}\` |`);
      }
    }
  });

  it("notices a key added to the schema", () => {
    const web = ROOT_SPEC.keys.web as Extract<(typeof ROOT_SPEC.keys)[string], { kind: "table" }>;
    web.keys.proxy_by_name = { kind: "bool" };
    try {
      const { text, missing } = renderReference();
      expect(missing).toEqual(["web.proxy_by_name"]);
      expect(spliceGenerated(committed, text)).not.toBe(committed);
    } finally {
      delete web.keys.proxy_by_name;
    }
  });
});
