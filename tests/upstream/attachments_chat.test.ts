// `scv chat` `/image PATH` and a pasted image path (issue 20), in plain line mode through the real CLI against the
// fake provider: the staged image goes with the next prompt only.
// deno-lint-ignore-file no-explicit-any -- reads untyped wire JSON (request bodies, JSON-RPC messages)
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
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
    const input = [
      "/image red.png",
      "/image missing.png",
      "what colour?",
      "'my shots/blue.png'",
      "and this?",
      "no image",
      "/exit",
    ];
    const result = await harness.start(["chat"], { stdin: input.join("\n") + "\n" }).done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`attached red.png (image/png, ${RED.length} bytes); it goes with your next prompt`);
    expect(result.stdout).toContain("error: image missing.png: no such file");
    const [first, second, third] = harness.provider.requests;
    const images = (content: unknown) =>
      Array.isArray(content) ? content.filter((part) => part.type === "input_image").map((part) => part.image_url) : [];
    expect(images(first!.body.input.at(-1).content)).toEqual([url(RED)]);
    expect(second!.body.input.at(-1).content[0].text).toMatch(
      /^and this\?\n\n\[The user attached:\]\n- image blue\.png/,
    );
    expect(images(second!.body.input.at(-1).content)).toEqual([url(BLUE)]);
    // Neither the pasted path nor the failed /image became a prompt of its own.
    expect(harness.provider.requests).toHaveLength(3);
    expect(third!.body.input.at(-1)).toEqual({ role: "user", content: "no image" });
  });
});

describe("scv chat images from anywhere (issue 27 item 6)", () => {
  it("/image and a pasted absolute path of a file outside the workspace attach it; the tools stay confined", async () => {
    const outside = join(harness.sandbox.root, "outside.png");
    const pasted = join(harness.sandbox.root, "pasted.png");
    await writeFile(outside, RED);
    await writeFile(pasted, BLUE);
    harness.provider.push(
      textResponse(["red"]),
      toolCallResponse([{ call_id: "r1", name: "read", arguments: { path: pasted } }]),
      textResponse(["could not read it"]),
    );
    const input = [`/image ${outside}`, "what colour?", pasted, "and this?", "/exit"];
    const result = await harness.start(["chat"], { stdin: input.join("\n") + "\n" }).done;
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).not.toContain("unknown command");
    expect(result.stdout).toContain("attached pasted.png");
    const images = (content: unknown) =>
      Array.isArray(content) ? content.filter((part) => part.type === "input_image").map((part) => part.image_url) : [];
    const [first, second, third] = harness.provider.requests;
    expect(images(first!.body.input.at(-1).content)).toEqual([url(RED)]);
    expect(images(second!.body.input.at(-1).content)).toEqual([url(BLUE)]);
    // The model's read of the attached file outside the workspace is still refused.
    const output = third!.body.input.find((item: any) => item.type === "function_call_output" && item.call_id === "r1");
    expect(output.output).toMatch(/^path must be non-empty and relative$|^absolute path .* is outside the workspace/);
  });
});

describe("scv chat with a sub-agent", () => {
  it("an 'always' answer to one sub-agent call does not approve its other calls of the same tool", async () => {
    harness.provider.push(
      toolCallResponse([{ call_id: "p1", name: "agent", arguments: { prompt: "run two commands" } }]),
      toolCallResponse([{ call_id: "b1", name: "bash", arguments: { command: "touch one.txt" } }]),
      toolCallResponse([{ call_id: "b2", name: "bash", arguments: { command: "rm -rf important" } }]),
      textResponse(["ran one, two was refused"]),
      textResponse(["done"]),
    );
    // y: the delegation; a: always for `touch one.txt`; n: the different second command must be asked, and is denied.
    const result = await harness.start(["chat"], { stdin: "go\ny\na\nn\n" }).done;
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out.match(/Allow\? \[y\]es \/ \[n\]o \/ \[a\]lways for this session( \/ \[k\]eep for good)?:/g))
      .toHaveLength(3);
    expect(out).toContain("[agent-1 depth 1] ");
    expect(out).not.toContain("approved (always allowed for this session)");
    const third = harness.provider.requests[3]!.body.input;
    const denied = third.find((item: any) => item.type === "function_call_output" && item.call_id === "b2");
    expect(denied.output).toBe("tool call denied by policy or user");
  });
});
