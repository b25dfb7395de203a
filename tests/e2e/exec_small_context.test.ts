// A small context window through `scv exec` (issue 27 item 5): the failures name the setting to change and to what.
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";

const harness = useCliHarness();

describe("a small context window", () => {
  it("a window the tool schemas do not fit in names context.max_tokens and a size that fits", async () => {
    await harness.sandbox.writeUserConfig(
      "[context]\nmax_tokens = 2048\nreserve_output_tokens = 512\nsafety_margin_tokens = 64\n",
    );
    harness.provider.push(textResponse(["never"]));
    const result = await harness.start(["exec", "go"]).done;
    expect(result.code).toBe(1);
    const match =
      /turn failed \(context_limit\): system prompt and tool schemas exceed context budget: they take about (\d+) tokens.*; set context\.max_tokens to at least (\d+) if the model's window is that large/
        .exec(result.stderr);
    expect(match, result.stderr).not.toBeNull();
    const [, fixed, suggested] = match!.map(Number);
    expect(suggested! % 1024).toBe(0);
    expect(suggested).toBeGreaterThan(fixed! + 512 + 64);
    expect(harness.provider.requests).toHaveLength(0);
  });

  it("reserves that leave nothing of max_tokens name the reserves to set for that window", async () => {
    await harness.sandbox.writeUserConfig("[context]\nmax_tokens = 4096\n");
    const result = await harness.start(["exec", "go"]).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "context reserve and safety margin consume max_tokens: context.reserve_output_tokens (8192) + " +
        "context.safety_margin_tokens (2048) leave nothing of context.max_tokens (4096); for a window this small set " +
        "reserve_output_tokens = 1024 and safety_margin_tokens = 128 in [context], or raise max_tokens above 10240 " +
        "if the model's window is larger",
    );
  });

  it("the window the suggestion names is enough", async () => {
    await harness.sandbox.writeUserConfig(
      "[context]\nmax_tokens = 2048\nreserve_output_tokens = 512\nsafety_margin_tokens = 64\n",
    );
    const failed = await harness.start(["exec", "go"]).done;
    const suggested = /set context\.max_tokens to at least (\d+)/.exec(failed.stderr)![1];
    await harness.sandbox.writeUserConfig(
      `[context]\nmax_tokens = ${suggested}\nreserve_output_tokens = 512\nsafety_margin_tokens = 64\n`,
    );
    harness.provider.push(textResponse(["fits now"]));
    const result = await harness.start(["exec", "go"]).done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("fits now\n");
  });
});
