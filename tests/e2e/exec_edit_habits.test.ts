// Real models' edit habits through `scv exec --yes` (issue 27 item 4): `edit`, `apply_patch`, `read`, `write` and
// the searches take an absolute path inside the workspace and refuse one outside it; `apply_patch` takes a patch wrapped in a heredoc the way
// the Codex CLI's parser does (`<<'EOF'` … `EOF`, and `apply_patch <<'EOF'` … `EOF`).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerEvent } from "../support/server_client.ts";

const harness = useCliHarness();
const ws = (name: string) => join(harness.sandbox.workspace, name);

/** Runs one turn whose model makes `calls` (approved with --yes); returns each call's tool.completed. */
async function turn(calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<ServerEvent[]> {
  harness.provider.push(
    toolCallResponse(calls.map((call, index) => ({ call_id: `c${index}`, ...call }))),
    textResponse(["done"]),
  );
  const result = await harness.start(["exec", "--yes", "--json", "go"]).done;
  expect(result.code, result.stderr).toBe(0);
  const events: ServerEvent[] = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
  return calls.map((_, index) =>
    events.find((event) => event.type === "tool.completed" && event.call_id === `c${index}`)!
  );
}

const patch = (path: string) => `*** Begin Patch\n*** Update File: ${path}\n@@\n-one\n+uno\n*** End Patch`;

describe("absolute paths", () => {
  it("edit and apply_patch change a file named by its absolute path inside the workspace", async () => {
    await writeFile(ws("e.txt"), "hello world\n");
    await writeFile(ws("p.txt"), "one\n");
    const [edited, patched] = await turn([
      { name: "edit", arguments: { path: ws("e.txt"), old_string: "world", new_string: "there" } },
      { name: "apply_patch", arguments: { input: patch(ws("p.txt")) } },
    ]);
    expect(edited).toMatchObject({ success: true });
    expect(patched).toMatchObject({ success: true });
    expect(await readFile(ws("e.txt"), "utf8")).toBe("hello there\n");
    expect(await readFile(ws("p.txt"), "utf8")).toBe("uno\n");
  });

  it("read, write and grep take an absolute path inside the workspace too", async () => {
    await writeFile(ws("r.txt"), "needle here\n");
    const [read, written, found] = await turn([
      { name: "read", arguments: { path: ws("r.txt") } },
      { name: "write", arguments: { path: ws("w.txt"), content: "new\n", mode: "create" } },
      { name: "grep", arguments: { pattern: "needle", path: harness.sandbox.workspace } },
    ]);
    expect(read).toMatchObject({ success: true });
    expect(JSON.parse(read!.output as string)).toMatchObject({ path: "r.txt", content: "needle here\n" });
    expect(written).toMatchObject({ success: true });
    expect(await readFile(ws("w.txt"), "utf8")).toBe("new\n");
    expect(found).toMatchObject({ success: true, output: "r.txt:1:needle here" });
  });

  it("refuses an absolute path outside the workspace and leaves that file alone", async () => {
    const outside = join(harness.sandbox.root, "outside.txt");
    await writeFile(outside, "one\n");
    const [edited, patched] = await turn([
      { name: "edit", arguments: { path: outside, old_string: "one", new_string: "two" } },
      { name: "apply_patch", arguments: { input: patch(outside) } },
    ]);
    expect(edited).toMatchObject({ success: false });
    expect(edited!.output).toContain(`absolute path ${outside} is outside the workspace`);
    expect(patched).toMatchObject({ success: false });
    expect(patched!.output).toContain(`absolute path ${outside} is outside the workspace`);
    expect(await readFile(outside, "utf8")).toBe("one\n");
  });
});

describe("apply_patch in a heredoc", () => {
  it("takes `<<'EOF'` … `EOF` and `apply_patch <<'EOF'` … `EOF` around the patch", async () => {
    await writeFile(ws("a.txt"), "one\n");
    await writeFile(ws("b.txt"), "one\n");
    const [bare, shell] = await turn([
      { name: "apply_patch", arguments: { input: `<<'EOF'\n${patch("a.txt")}\nEOF\n` } },
      { name: "apply_patch", arguments: { input: `apply_patch <<'EOF'\n${patch("b.txt")}\nEOF\n` } },
    ]);
    expect(bare).toMatchObject({ success: true });
    expect(shell).toMatchObject({ success: true });
    expect(await readFile(ws("a.txt"), "utf8")).toBe("uno\n");
    expect(await readFile(ws("b.txt"), "utf8")).toBe("uno\n");
  });

  it("takes `cd <folder> && apply_patch <<'EOF'`, the paths relative to that folder, and no way out of it", async () => {
    await mkdir(ws("src"));
    await writeFile(ws("src/c.txt"), "one\n");
    await writeFile(ws("d.txt"), "one\n");
    const outside = join(harness.sandbox.root, "outside.txt");
    await writeFile(outside, "one\n");
    const [inFolder, atRoot, escaping] = await turn([
      { name: "apply_patch", arguments: { input: `cd src && apply_patch <<'EOF'\n${patch("c.txt")}\nEOF\n` } },
      {
        name: "apply_patch",
        arguments: { input: `cd ${harness.sandbox.workspace} && apply_patch <<'EOF'\n${patch("d.txt")}\nEOF\n` },
      },
      {
        name: "apply_patch",
        arguments: { input: `cd src && apply_patch <<'EOF'\n${patch("../../outside.txt")}\nEOF` },
      },
    ]);
    expect(inFolder).toMatchObject({ success: true });
    expect(atRoot).toMatchObject({ success: true });
    expect(await readFile(ws("src/c.txt"), "utf8")).toBe("uno\n");
    expect(await readFile(ws("d.txt"), "utf8")).toBe("uno\n");
    expect(escaping).toMatchObject({ success: false });
    expect(escaping!.output).toContain("parent traversal");
    expect(await readFile(outside, "utf8")).toBe("one\n");
  });
});
