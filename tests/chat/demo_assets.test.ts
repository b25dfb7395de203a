// The demo embedded in the bundle (lib/chat/demo_assets.ts) is generated from examples/demo and must match it.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { DEMO_SCRIPT, DEMO_WORKSPACE } from "../../lib/chat/demo_assets.ts";
import { parseReplayScript } from "../../lib/embed/replay.ts";
import { DEMO_ASSETS_MODULE, renderDemoAssets } from "../../scripts/demo_assets.ts";

describe("embedded demo", () => {
  it("is up to date with examples/demo (else run `node scripts/demo_assets.ts`)", async () => {
    expect(await readFile(DEMO_ASSETS_MODULE, "utf8")).toBe(await renderDemoAssets());
  });

  it("holds a playable script and the workspace with its executable test script", () => {
    const script = parseReplayScript(DEMO_SCRIPT);
    expect(script.prompts.length).toBeGreaterThanOrEqual(3);
    expect(DEMO_WORKSPACE.map((file) => file.path)).toEqual(["README.md", "src/greet.js", "test.sh"]);
    expect(DEMO_WORKSPACE.find((file) => file.path === "test.sh")!.mode).toBe(0o755);
  });
});
