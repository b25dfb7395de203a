// `scv exec --image PATH` (issue 20) through the real CLI against the fake provider: the images reach the model on
// both wires, a prompt may be empty with them, and bad images fail before or at turn.start.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { fakeProfileToml } from "../support/config_files.ts";
import { chatTextResponse, textResponse } from "../support/fake_provider.ts";
import { tinyPng } from "./png.ts";

const harness = useCliHarness();
const RED = tinyPng([255, 0, 0]);
const BLUE = tinyPng([0, 0, 255]);
const url = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;

async function images(): Promise<void> {
  await writeFile(join(harness.sandbox.workspace, "red.png"), RED);
  await mkdir(join(harness.sandbox.workspace, "sub"));
  await writeFile(join(harness.sandbox.workspace, "sub", "blue.png"), BLUE);
}

describe("scv exec --image", () => {
  it("attaches each image as Responses input_image, in order", async () => {
    await images();
    harness.provider.push(textResponse(["two dots"]));
    const result = await harness.start(["exec", "--image", "red.png", "--image", "sub/blue.png", "compare"]).done;
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("two dots\n");
    expect(result.code).toBe(0);
    const content = harness.provider.requests[0]!.body.input[0].content;
    const workspace = harness.sandbox.workspace;
    expect(content[0]).toEqual({
      type: "input_text",
      text:
        `compare\n\n[The user attached:]\n- image red.png (image/png, ${RED.length} bytes) at ${
          join(workspace, "red.png")
        }` +
        `\n- image blue.png (image/png, ${BLUE.length} bytes) at ${join(workspace, "sub", "blue.png")}`,
    });
    expect(content.slice(1)).toEqual([
      { type: "input_image", image_url: url(RED) },
      { type: "input_image", image_url: url(BLUE) },
    ]);
  });

  it("attaches Chat Completions image_url parts, and the prompt may be empty", async () => {
    await images();
    await harness.sandbox.writeUserConfig(
      fakeProfileToml({ name: "local", baseUrl: harness.provider.url, model: "llama3.1", apiKey: "local" }) +
        'wire_api = "chat"\n',
    );
    harness.provider.push(chatTextResponse(["red"]));
    const result = await harness.start(["exec", "--image", "red.png", ""], {
      env: { SCV_BASE_URL: undefined, SCV_MODEL: undefined },
    }).done;
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const request = harness.provider.requests[0]!;
    expect(request.requestLine).toBe("POST /v1/chat/completions HTTP/1.1");
    expect(request.body.messages[1].content).toEqual([
      {
        type: "text",
        text: `[The user attached:]\n- image red.png (image/png, ${RED.length} bytes) at ${
          join(harness.sandbox.workspace, "red.png")
        }`,
      },
      { type: "image_url", image_url: { url: url(RED) } },
    ]);
  });

  it("refuses a missing file or one that is not an image, with exit 2 and no request", async () => {
    await writeFile(join(harness.sandbox.workspace, "notes.png"), "just text, named like an image\n");
    for (
      const [file, message] of [
        ["missing.png", "scv exec: image missing.png: no such file\n"],
        ["notes.png", "scv exec: image notes.png is not a PNG, JPEG, GIF or WebP file\n"],
      ] as const
    ) {
      const result = await harness.start(["exec", "--image", file, "look"]).done;
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(message);
    }
    expect(harness.provider.requests).toHaveLength(0);
  });

  it("attaches an image the user names from outside the workspace; the model gets its name, not its path", async () => {
    // Changed (issue 27 item 6): the user chose the file, so it goes; only a remote client's must be inside.
    const outside = join(harness.sandbox.root, "outside.png");
    await writeFile(outside, RED);
    harness.provider.push(textResponse(["red"]));
    const result = await harness.start(["exec", "--image", outside, "look"]).done;
    expect(result.code, result.stderr).toBe(0);
    const content = harness.provider.requests[0]!.body.input.at(-1).content;
    expect(content[0].text).toBe(`look\n\n[The user attached:]\n- image outside.png (image/png, ${RED.length} bytes)`);
    expect(content[1].image_url).toBe(url(RED));
  });

  it("still refuses an image from outside the workspace whose path looks like it holds credentials", async () => {
    const secret = join(harness.sandbox.root, ".ssh", "key.png");
    await mkdir(join(harness.sandbox.root, ".ssh"));
    await writeFile(secret, RED);
    const result = await harness.start(["exec", "--image", secret, "look"]).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`attach ${secret}: the path looks like it holds credentials`);
    expect(harness.provider.requests).toHaveLength(0);
  });
});
