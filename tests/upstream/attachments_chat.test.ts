// `scv chat` `/image PATH` and a pasted image path (issue 20), in plain line mode through the real CLI against the
// fake provider: the staged image goes with the next prompt only.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";
import { tinyPng } from "./png.ts";

const harness = useCliHarness();
const RED = tinyPng([255, 0, 0]);
const BLUE = tinyPng([0, 0, 255]);
const url = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;

describe("scv chat images", () => {
  it("stages /image and a pasted quoted path for the next prompt only", async () => {
    await writeFile(join(harness.sandbox.workspace, "red.png"), RED);
    await mkdir(join(harness.sandbox.workspace, "my shots"));
    await writeFile(join(harness.sandbox.workspace, "my shots", "blue.png"), BLUE);
    harness.provider.push(textResponse(["red"]), textResponse(["blue"]), textResponse(["plain"]));
    const input = ["/image red.png", "/image missing.png", "what colour?", "'my shots/blue.png'", "and this?", "no image", "/exit"];
    const result = await harness.start(["chat"], { stdin: input.join("\n") + "\n" }).done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`attached red.png (image/png, ${RED.length} bytes); it goes with your next prompt`);
    expect(result.stdout).toContain("error: image missing.png: no such file");
    const [first, second, third] = harness.provider.requests;
    const images = (content: unknown) =>
      Array.isArray(content) ? content.filter((part) => part.type === "input_image").map((part) => part.image_url) : [];
    expect(images(first!.body.input.at(-1).content)).toEqual([url(RED)]);
    expect(second!.body.input.at(-1).content[0].text).toMatch(/^and this\?\n\n\[The user attached:\]\n- image blue\.png/);
    expect(images(second!.body.input.at(-1).content)).toEqual([url(BLUE)]);
    // Neither the pasted path nor the failed /image became a prompt of its own.
    expect(harness.provider.requests).toHaveLength(3);
    expect(third!.body.input.at(-1)).toEqual({ role: "user", content: "no image" });
  });
});
