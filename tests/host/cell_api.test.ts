// Host spec §12 items 22–28, 31 as seen on the wire (the sandbox's own tests cover every detail):
// one host, one session, one cell per row.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execute, type Frame, open, tool } from "../support/frame_client.ts";
import { fileSandbox, readyInProcess, type TestHost } from "./in_process.ts";

const { sandbox, stop } = fileSandbox();
let host: TestHost;
let nextId = 10;

beforeAll(async () => {
  host = await readyInProcess([], { sandbox });
  host.send(open(1, "s1"));
  await host.frames.next();
});
afterAll(stop);

const text = (value: string) => ({ type: "input_text", text: value });

/** Runs one cell to completion (no tool calls) and returns its Result body. */
async function run(source: string, tools: unknown[] = []): Promise<Frame> {
  const id = nextId++;
  host.send(execute(id, "s1", source, { tools }));
  const frames = await host.frames.until((f) => f.type === "cell/closed");
  const initial = frames.find((f) => f.type === "execute/initialResponse" && f.id === id);
  return initial.result.value.Result;
}

describe("the JavaScript API on the wire", () => {
  test("absent globals and Intl (§12.22)", async () => {
    const names = ["console", "Atomics", "SharedArrayBuffer", "WebAssembly", "require", "process", "Buffer", "fetch"];
    const result = await run(
      `text(${
        JSON.stringify(names)
      }.map((n) => typeof globalThis[n]).join(',')); text(new Intl.NumberFormat('en-US').format(1234.5))`,
    );
    expect(result.content_items).toEqual([text(names.map(() => "undefined").join(",")), text("1,234.5")]);
  });

  test("imports are rejected (§12.22)", async () => {
    expect((await run("import fs from 'fs'; text(1)")).error_text).toBe("Unsupported import in exec: fs");
    const dynamic = await run("try { await import('fs') } catch (e) { text(typeof e + ':' + e) }");
    expect(dynamic.content_items).toEqual([text("string:unsupported import in exec")]);
  });

  test("exit() ends the cell successfully (§12.23)", async () => {
    expect(await run("text('a'); exit(); text('b')")).toMatchObject({ content_items: [text("a")], error_text: null });
    expect(await run("try { exit() } catch { text('c') }")).toMatchObject({ content_items: [], error_text: null });
  });

  test("text conversions (§12.24)", async () => {
    const result = await run("text(NaN); text(null); text(); text(true); text(10n); text({a:[1]}); text(() => 1)");
    expect(result.content_items.map((i: { text: string }) => i.text)).toEqual([
      "NaN",
      "null",
      "undefined",
      "true",
      "10",
      '{"a":[1]}',
      "undefined",
    ]);
  });

  test("timers (§12.25)", async () => {
    const result = await run(
      "const a = setTimeout(() => text('t'), 1); const b = setTimeout(() => {}, 1); text(a + ',' + b + ',' + typeof setInterval); await new Promise((r) => setTimeout(r, 5))",
    );
    expect(result.content_items).toEqual([text("1,2,undefined"), text("t")]);
    expect((await run("setTimeout('x')")).error_text).toBe("setTimeout expects a function callback");
  });

  test("store and load across cells (§12.26)", async () => {
    await run("store('k', { n: 1, d: new Date(0) })");
    const result = await run("const v = load('k'); v.n = 2; text(JSON.stringify(load('k')))");
    expect(result.content_items).toEqual([text('{"n":1,"d":"1970-01-01T00:00:00.000Z"}')]);
  });

  test("notify rejects blank text (§12.27)", async () => {
    expect((await run("notify(' ')")).error_text).toBe("notify expects non-empty text");
  });

  test("ALL_TOOLS names are normalized (§12.31)", async () => {
    const tools = ["a-b", "9x", "ok$", "mcp__srv__t", ""].map((name) => tool(name));
    const result = await run(
      "text(ALL_TOOLS.map((t) => t.name).join(' ') + '|' + Object.keys(tools).join(' '))",
      tools,
    );
    expect(result.content_items).toEqual([text("a_b _x ok$ mcp__srv__t _|a_b _x ok$ mcp__srv__t _")]);
  });

  test("image forms and errors (§12.31)", async () => {
    const result = await run(
      "image('data:image/png;base64,AA', 'LOW'); image({ type: 'image', data: 'QQ', mimeType: 'image/gif' })",
    );
    expect(result.content_items).toEqual([
      { type: "input_image", image_url: "data:image/png;base64,AA", detail: "low" },
      { type: "input_image", image_url: "data:image/gif;base64,QQ", detail: "high" },
    ]);
    expect((await run("image('https://x.example/a.png')")).error_text).toBe(
      "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
    );
    expect((await run("audio('data:audio/wav;base64,AA')")).content_items).toEqual([
      { type: "input_audio", audio_url: "data:audio/wav;base64,AA" },
    ]);
  });
});
