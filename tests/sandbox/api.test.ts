// The JavaScript API inside a cell (host spec §7): every global and its exact error texts.
import { describe, expect, it } from "vitest";
import { recorder, tool, useSandbox } from "./helpers.ts";

const box = useSandbox();
const FAILED_SERIALIZE = "failed to serialize JavaScript value: expected value at line 1 column 1";

describe("environment", () => {
  it("lacks the host globals of §7.1", async () => {
    const names = [
      "console",
      "Atomics",
      "SharedArrayBuffer",
      "WebAssembly",
      "require",
      "process",
      "Buffer",
      "fetch",
      "setInterval",
      "setImmediate",
      "queueMicrotask",
      "structuredClone",
      "TextEncoder",
      "Temporal",
      "module",
      "exports",
    ];
    const { texts, errorText } = await box.result(`text([${names.map((n) => `typeof ${n}`).join(",")}].join(","))`);
    expect(errorText).toBeNull();
    expect(texts).toEqual([names.map(() => "undefined").join(",")]);
  });

  it("has the ECMAScript built-ins, Intl with ICU included", async () => {
    const { texts } = await box.result(
      "text(new Intl.NumberFormat('de-DE').format(1234.5)); text(typeof eval + typeof Function + typeof Promise + typeof JSON + typeof Uint8Array)",
    );
    expect(texts).toEqual(["1.234,5", "functionfunctionfunctionobjectfunction"]);
  });

  it("runs the source as a strict module: this is undefined, top-level await, export ignored", async () => {
    const { texts, errorText } = await box.result(
      "export const a = 1;\nexport default 5;\nexport function f() { return 2 }\nexport { a as b };\ntext(String(this)); text(await Promise.resolve(a + f()));\nundeclared = 1",
    );
    expect(texts).toEqual(["undefined", "3"]);
    expect(errorText).toBe("ReferenceError: undeclared is not defined\n    at exec_main.mjs:6:12");
  });

  it("fails a static import before running anything", async () => {
    const { texts, errorText } = await box.result("text('before');\nimport fs from 'fs';");
    expect(texts).toEqual([]);
    expect(errorText).toBe("Unsupported import in exec: fs");
    expect((await box.result("export * from 'node:child_process'")).errorText).toBe(
      "Unsupported import in exec: node:child_process",
    );
  });

  it("rejects import() with the plain string", async () => {
    const { texts } = await box.result(
      "try { await import('fs') } catch (e) { text(typeof e); text(e) }\n" +
        "try { await eval(\"import('fs')\") } catch (e) { text(e) }\n" +
        "try { await Function(\"return import('node:fs')\")() } catch (e) { text(e) }",
    );
    expect(texts).toEqual([
      "string",
      "unsupported import in exec",
      "unsupported import in exec",
      "unsupported import in exec",
    ]);
  });

  it("reports a syntax error as SyntaxError: <message>", async () => {
    const { errorText, texts } = await box.result("text('a');\nlet let = ;");
    expect(texts).toEqual([]);
    expect(errorText).toMatch(/^SyntaxError: [^\n]+$/);
  });
});

describe("error_text", () => {
  it("is the stack of a thrown error, with cell frames only", async () => {
    const { texts, errorText } = await box.result("text('before'); throw new Error('boom')");
    expect(texts).toEqual(["before"]);
    expect(errorText).toBe("Error: boom\n    at exec_main.mjs:1:23");
  });

  it("keeps line numbers of the original source and nested frames", async () => {
    const { errorText } = await box.result("\n\nfunction f() {\n  throw new TypeError('deep')\n}\nf()");
    expect(errorText).toBe("TypeError: deep\n    at f (exec_main.mjs:4:9)\n    at exec_main.mjs:6:1");
  });

  it("keeps built-in frames between cell frames, like a module would", async () => {
    const { errorText } = await box.result("await 0;\n[1].map(() => { throw new Error('m') })");
    expect(errorText).toBe(
      "Error: m\n    at exec_main.mjs:2:23\n    at Array.map (<anonymous>)\n    at exec_main.mjs:2:5",
    );
    const nested = await box.result("async function f() { await 0; throw new Error('x') }\nawait f();");
    expect(nested.errorText).toBe("Error: x\n    at f (exec_main.mjs:1:37)\n    at async exec_main.mjs:2:1");
  });

  it("after an await only cell frames remain", async () => {
    const { errorText } = await box.result("await new Promise((r) => setTimeout(r, 1));\nthrow new Error('late')");
    expect(errorText).toBe("Error: late\n    at exec_main.mjs:2:7");
  });

  it("is String(value) for non-errors", async () => {
    for (
      const [source, expected] of [
        ["throw 'boom'", "boom"],
        ["throw {}", "[object Object]"],
        ["throw 42", "42"],
        ["throw undefined", "undefined"],
        ["throw null", "null"],
        ["throw { stack: 5, toString() { return 'custom' } }", "custom"],
        ["throw { stack: 'my stack' }", "my stack"],
        ["throw Object.create(null)", "[object Object]"],
        ["throw Promise.reject(1)", "[object Promise]"],
      ] as const
    ) {
      expect((await box.result(source)).errorText, source).toBe(expected);
    }
  });

  it("a cell's own Error.prepareStackTrace still formats its stacks", async () => {
    const { texts } = await box.result(
      "Error.prepareStackTrace = (e, sites) => e.message + '@' + sites.map((s) => s.getFileName() + ':' + s.getLineNumber()).join();\n" +
        "text(new Error('m').stack); text(typeof Error.prepareStackTrace); Error.prepareStackTrace = undefined; text(new Error('n').stack)",
    );
    expect(texts).toEqual(["m@exec_main.mjs:2", "function", "Error: n\n    at exec_main.mjs:2:109"]);
  });

  it("is null on success", async () => {
    expect((await box.result("text(1)")).errorText).toBeNull();
  });
});

describe("exit()", () => {
  it("ends the cell at once and successfully, keeping earlier items", async () => {
    expect(await box.result("text('a'); exit(); text('b')")).toMatchObject({ texts: ["a"], errorText: null });
  });

  it("cannot be caught", async () => {
    expect(await box.result("try { exit() } catch { text('c') } text('d')")).toMatchObject({
      texts: [],
      errorText: null,
    });
  });

  it("works from a timer and from an async function", async () => {
    expect(await box.result("setTimeout(() => { text('t'); exit(); text('u') }, 1); await new Promise(() => {})"))
      .toMatchObject({
        texts: ["t"],
        errorText: null,
      });
    expect(await box.result("async function f() { await 0; exit() } await f(); text('after')")).toMatchObject({
      texts: [],
      errorText: null,
    });
  });
});

describe("text()", () => {
  it("converts values as §7.2 says", async () => {
    const { texts } = await box.result(
      "text('s'); text(1); text(NaN); text(true); text(10n); text(null); text(); text(undefined); text({a: 1, b: [2]});" +
        "text(() => 1); text(Symbol('x')); text(''); text(new Date(0)); text({toJSON() { return 'j' }})",
    );
    expect(texts).toEqual([
      "s",
      "1",
      "NaN",
      "true",
      "10",
      "null",
      "undefined",
      "undefined",
      '{"a":1,"b":[2]}',
      "undefined",
      "undefined",
      "",
      '"1970-01-01T00:00:00.000Z"',
      '"j"',
    ]);
  });

  it("returns undefined and propagates JSON errors", async () => {
    const { texts, errorText } = await box.result("text(String(text('x'))); const o = {}; o.o = o; text(o)");
    expect(texts).toEqual(["x", "undefined"]);
    expect(errorText).toMatch(/^TypeError: Converting circular structure to JSON/);
    // Like the reference: no frame of the JSON serialization the runtime ran for text().
    expect(errorText).not.toContain("<anonymous>");
    expect(errorText!.split("\n").filter((line) => line.startsWith("    at "))).toEqual(["    at exec_main.mjs:1:49"]);
  });
});

describe("timers", () => {
  it("numbers timers 1, 2, … and checks the callback", async () => {
    const { texts, errorText } = await box.result(
      "text(setTimeout(() => {})); text(setTimeout(() => {}, 5)); setTimeout('x')",
    );
    expect(texts).toEqual(["1", "2"]);
    expect(errorText).toBe("setTimeout expects a function callback");
  });

  it("do not keep the cell alive", async () => {
    // A cell kept alive by its timer would end only after it fired, with "late" in its result.
    const { texts } = await box.result("setTimeout(() => text('late'), 3000); text('now')");
    expect(texts).toEqual(["now"]);
  });

  it("fire in due-time order; Infinity and negative delays fire at once; extra arguments are not passed", async () => {
    // A timer's due time counts from its own setTimeout call, and a busy machine can stall the process between
    // two calls: the order below holds unless a stall outlasts the gap between the due times (about a second).
    const { texts } = await box.result(
      "setTimeout((...args) => text('inf' + args.length), Infinity, 1, 2); setTimeout(() => text('neg'), -5);" +
        "setTimeout(() => text('b'), 1000); setTimeout(() => text('a'), 10); await new Promise((r) => setTimeout(r, 1100))",
    );
    expect(texts).toEqual(["inf0", "neg", "a", "b"]);
  });

  it("a throwing callback fails the cell", async () => {
    const { errorText } = await box.result(
      "setTimeout(() => { throw new Error('cb') }, 1); await new Promise(() => {})",
    );
    expect(errorText).toBe("Error: cb\n    at exec_main.mjs:1:26");
  });

  it("clearTimeout cancels, ignores unknown ids and rejects symbols and bigints", async () => {
    const { texts, errorText } = await box.result(
      "const id = setTimeout(() => text('no'), 5); clearTimeout(id); clearTimeout('a'); clearTimeout(); clearTimeout(null); clearTimeout(99);" +
        "await new Promise((r) => setTimeout(r, 20)); text('yes'); clearTimeout(1n)",
    );
    expect(texts).toEqual(["yes"]);
    expect(errorText).toBe("clearTimeout expects a numeric timeout id");
    expect((await box.result("clearTimeout(Symbol())")).errorText).toBe("clearTimeout expects a numeric timeout id");
  });
});

describe("store() and load()", () => {
  it("stores JSON round trips and loads deep copies", async () => {
    const { texts } = await box.result(
      "const o = {a: [1]}; store('k', o); o.a.push(2); const l = load('k'); l.a.push(3); text(load('k'));" +
        "store(1, 'one'); text(load('1')); text(String(load('missing')));" +
        "store('d', {d: new Date(0), m: new Map([[1, 2]]), n: NaN, f() {}}); text(load('d'));" +
        "store('__proto__', 5); text(load('__proto__'))",
    );
    expect(texts).toEqual(['{"a":[1]}', "one", "undefined", '{"d":"1970-01-01T00:00:00.000Z","m":{},"n":null}', "5"]);
  });

  it("has the exact error texts of §7.3", async () => {
    const cases: [string, string | RegExp][] = [
      ["store(Symbol(), 1)", "store key must be a string"],
      ["load(Symbol())", "load key must be a string"],
      ["store('k')", 'Unable to store "k". Only plain serializable objects can be stored.'],
      ["store('k', undefined)", 'Unable to store "k". Only plain serializable objects can be stored.'],
      ["store('k', () => 1)", FAILED_SERIALIZE],
      ["store('k', Symbol())", FAILED_SERIALIZE],
      ["store('k', 1n)", /^TypeError: Do not know how to serialize a BigInt/],
      ["const c = {}; c.c = c; store('k', c)", /^TypeError: Converting circular structure to JSON/],
    ];
    for (const [source, expected] of cases) {
      const { errorText } = await box.result(source);
      if (typeof expected === "string") expect(errorText, source).toBe(expected);
      else expect(errorText, source).toMatch(expected);
    }
  });
});

describe("notify()", () => {
  it("rejects empty text and stringifies like text()", async () => {
    expect((await box.result("notify(' \\n ')")).errorText).toBe("notify expects non-empty text");
    expect((await box.result("notify()")).errorText).toBeNull();
    const rec = recorder();
    const { errorText } = await box.result("notify({a: 1}); notify('plain')", { rec });
    expect(errorText).toBeNull();
    expect(rec.notifications).toEqual(['{"a":1}', "plain"]);
  });

  it("the result waits for every notification", async () => {
    const rec = recorder();
    let delivered = false;
    // A slow consumer, not a synchronisation: the result must wait however long the delivery takes.
    rec.callbacks.notify = async () => {
      await new Promise((resolve) => setTimeout(resolve, 80));
      delivered = true;
    };
    const { texts } = await box.result("notify('x'); text('done')", { rec });
    expect(texts).toEqual(["done"]);
    expect(delivered).toBe(true);
  });

  it("a failed notification still completes the cell", async () => {
    const rec = recorder();
    rec.callbacks.notify = async () => {
      throw new Error("delivery failed");
    };
    expect(await box.result("notify('x'); text('ok')", { rec })).toMatchObject({ texts: ["ok"], errorText: null });
  });
});

describe("tools", () => {
  it("passes the JSON round trip of the first argument", async () => {
    const rec = recorder();
    await box.result(
      "await tools.t(); await tools.t(undefined); await tools.t('str'); await tools.t(5); await tools.t(null); await tools.t({a: undefined}, 'extra')",
      { rec, tools: [tool("t")] },
    );
    expect(rec.calls.map((c) => c.input)).toEqual([null, null, "str", 5, null, {}]);
    expect(rec.calls.map((c) => c.runtimeToolCallId)).toEqual([
      "tool-1",
      "tool-2",
      "tool-3",
      "tool-4",
      "tool-5",
      "tool-6",
    ]);
    expect(rec.calls.every((c) => c.tool.name === "t" && c.cellId === "1")).toBe(true);
  });

  it("throws synchronously for values JSON cannot represent", async () => {
    const rec = recorder();
    const { texts, errorText } = await box.result(
      "try { tools.t(1n) } catch (e) { text(e instanceof TypeError) } try { tools.t(() => 1) } catch (e) { text(e) }",
      { rec, tools: [tool("t")] },
    );
    expect(errorText).toBeNull();
    expect(texts).toEqual(["true", FAILED_SERIALIZE]);
    expect(rec.calls).toEqual([]);
  });

  it("resolves with the result and rejects with the message string", async () => {
    const rec = recorder(async (call) => {
      if (call.input === "fail") throw "Goal tools require a persistent thread.";
      if (call.input === "error") throw new Error("from an Error");
      return { answer: 42, nested: [null, "x"] };
    });
    const { texts } = await box.result(
      "const r = await tools.t('ok'); text(r.answer); text(r.nested);" +
        "try { await tools.t('fail') } catch (e) { text(typeof e); text(e) }" +
        "try { await tools.t('error') } catch (e) { text(e) }",
      { rec, tools: [tool("t")] },
    );
    expect(texts).toEqual(["42", '[null,"x"]', "string", "Goal tools require a persistent thread.", "from an Error"]);
  });

  it("restarts runtime call ids for every cell and passes the definition verbatim", async () => {
    const session = box.session();
    const rec = recorder();
    const freeform = { ...tool("apply_patch", "freeform"), tool_name: { name: "apply_patch", namespace: "ns__" } };
    for (let i = 0; i < 2; i++) {
      await box.start(session, "await tools.apply_patch('*** Begin'); await tools.apply_patch('x')", {
        rec,
        tools: [freeform],
      }).initial;
    }
    await session.close();
    expect(rec.calls.map((c) => [c.cellId, c.runtimeToolCallId])).toEqual([
      ["1", "tool-1"],
      ["1", "tool-2"],
      ["2", "tool-1"],
      ["2", "tool-2"],
    ]);
    expect(rec.calls[0]!.tool).toBe(freeform);
  });

  it("normalizes names; ALL_TOOLS lists them in order; a later duplicate wins", async () => {
    const rec = recorder(async (call) => call.tool.description);
    const defs = [tool("a-b"), tool("9x"), tool("ok$"), tool("mcp__srv__t"), tool(""), {
      ...tool("a_b"),
      description: "second",
    }];
    const { texts } = await box.result(
      "text(ALL_TOOLS.map((t) => t.name).join(' ')); text(ALL_TOOLS[0].description); text(Object.keys(ALL_TOOLS[0]).join());" +
        "text(await tools.a_b()); text(typeof tools.missing); ALL_TOOLS.push(1); text(ALL_TOOLS.length)",
      { rec, tools: defs },
    );
    expect(texts).toEqual(["a_b _x ok$ mcp__srv__t _ a_b", "a-b tool", "name,description", "second", "undefined", "7"]);
  });
});

describe("image(), audio(), generatedImage()", () => {
  const IMAGE_INPUT =
    "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";
  const AUDIO_INPUT = "audio expects a non-empty audio URL string, an object with audio_url, or a raw MCP audio block";

  it("accepts every image form", async () => {
    const { observation } = await box.result(
      "image('data:image/png;base64,AAA'); image({image_url: 'data:image/png;base64,BBB', detail: 'LOW'});" +
        "image({type: 'image', data: 'CCC', mimeType: 'image/jpeg'}); image({type: 'image', data: 'DDD', mime_type: 'image/gif', _meta: {'codex/imageDetail': 'original'}});" +
        "image({type: 'image', data: 'EEE'}); image({image_url: 'data:x', detail: 'low'}, 'Auto'); image('data:y', null)",
    );
    expect(observation.items).toEqual([
      { type: "input_image", image_url: "data:image/png;base64,AAA", detail: "high" },
      { type: "input_image", image_url: "data:image/png;base64,BBB", detail: "low" },
      { type: "input_image", image_url: "data:image/jpeg;base64,CCC", detail: "high" },
      { type: "input_image", image_url: "data:image/gif;base64,DDD", detail: "original" },
      { type: "input_image", image_url: "data:application/octet-stream;base64,EEE", detail: "high" },
      { type: "input_image", image_url: "data:x", detail: "auto" },
      { type: "input_image", image_url: "data:y", detail: "high" },
    ]);
  });

  it("has the exact image errors", async () => {
    const cases: [string, string][] = [
      ["image(5)", IMAGE_INPUT],
      ["image('')", IMAGE_INPUT],
      ["image({})", IMAGE_INPUT],
      ["image()", IMAGE_INPUT],
      ["image('data:x', 5)", "image detail must be a string when provided"],
      ["image('data:x', 'big')", "image detail must be one of: auto, low, high, original"],
      [
        "image('https://example.com/a.png')",
        "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
      ],
      [
        "image('HTTP://example.com/a.png')",
        "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
      ],
      ["image('file:///etc/passwd')", "Tool call failed: invalid image output. Pass a base64 data URI instead"],
    ];
    for (const [source, expected] of cases) expect((await box.result(source)).errorText, source).toBe(expected);
  });

  it("accepts every audio form and has the exact audio errors", async () => {
    const { observation } = await box.result(
      "audio('data:audio/wav;base64,AAA'); audio({audio_url: 'data:audio/mp3;base64,BBB'}); audio({type: 'audio', data: 'CCC', mimeType: 'audio/ogg'})",
    );
    expect(observation.items).toEqual([
      { type: "input_audio", audio_url: "data:audio/wav;base64,AAA" },
      { type: "input_audio", audio_url: "data:audio/mp3;base64,BBB" },
      { type: "input_audio", audio_url: "data:audio/ogg;base64,CCC" },
    ]);
    expect((await box.result("audio('http://x/a.wav')")).errorText).toBe(
      "Tool call failed: invalid audio output. Pass a base64 data URI instead",
    );
    expect((await box.result("audio(5)")).errorText).toBe(AUDIO_INPUT);
    expect((await box.result("audio({})")).errorText).toBe(AUDIO_INPUT);
  });

  it("generatedImage appends a high-detail image and the hint", async () => {
    const { observation } = await box.result(
      "generatedImage({image_url: 'data:image/png;base64,AAA', output_hint: 'saved to a.png'}); generatedImage({image_url: 'data:b'})",
    );
    expect(observation.items).toEqual([
      { type: "input_image", image_url: "data:image/png;base64,AAA", detail: "high" },
      { type: "input_text", text: "saved to a.png" },
      { type: "input_image", image_url: "data:b", detail: "high" },
    ]);
    expect((await box.result("generatedImage('data:x')")).errorText).toBe(
      "generatedImage expects an image generation result object",
    );
    expect((await box.result("generatedImage({image_url: 'data:x', output_hint: 1})")).errorText).toBe(
      "generatedImage output_hint must be a string when provided",
    );
    expect((await box.result("generatedImage({image_url: 'https://x'})")).errorText).toBe(
      "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
    );
  });
});

describe("optional extras: content(), as_settled(), stream_settled()", () => {
  it("content() appends one MCP block", async () => {
    const { observation } = await box.result(
      "content({type: 'text', text: 'hi'}); content({type: 'image', data: 'AAA', mimeType: 'image/png'}); content({type: 'audio', data: 'BBB', mimeType: 'audio/wav'})",
    );
    expect(observation.items).toEqual([
      { type: "input_text", text: "hi" },
      { type: "input_image", image_url: "data:image/png;base64,AAA", detail: "high" },
      { type: "input_audio", audio_url: "data:audio/wav;base64,BBB" },
    ]);
    for (
      const bad of ["content()", "content('x')", "content({type: 'text'})", "content({type: 'resource', uri: 'x'})"]
    ) {
      expect((await box.result(bad)).errorText, bad).toBe("content expects one MCP ContentBlock");
    }
  });

  it("as_settled() yields results in settlement order; stream_settled() awaits emit for each", async () => {
    // Settlement order comes from timers about a second apart, so that no stall of a busy machine reorders them.
    const { texts } = await box.result(
      "const later = (v, ms, fail) => new Promise((ok, no) => setTimeout(() => (fail ? no(v) : ok(v)), ms));" +
        "for await (const r of as_settled([later('a', 1000), later('b', 5, true), 'c'])) text(JSON.stringify(r));" +
        "await stream_settled([later(1, 1000), later(2, 1)], async (r) => { await later(0, 5); text(r.index + ':' + r.value) });",
    );
    expect(texts).toEqual([
      '{"index":2,"status":"fulfilled","value":"c"}',
      '{"index":1,"status":"rejected","reason":"b"}',
      '{"index":0,"status":"fulfilled","value":"a"}',
      "1:2",
      "0:1",
    ]);
  });
});
