// Sandbox escape attempts: none may reach the worker's `process`, `require` or the file system,
// or let one cell see another's state (host spec §7.1, design.md "Sandbox security model").
import { describe, expect, it, vi } from "vitest";
import { waitFor } from "../support/wait.ts";
import { recorder, tool, useFakeClock, useSandbox } from "./helpers.ts";

const box = useSandbox();

/**
 * Cell-side probe: `reach(value)` walks a value's prototype chain and constructors, tries every
 * Function constructor it finds, and flags objects whose prototype chain ends in another realm.
 * `report()` texts "safe" or the findings.
 */
const PROBE = `
const __found = [];
const __seen = new Set();
const __ownRoot = Object.prototype;
function __tryFn(F, where) {
  try {
    const r = F('try { return typeof process + "/" + typeof require + "/" + typeof Buffer } catch (e) { return "threw" }')();
    // Async (generator) function constructors return a promise or generator, not the string.
    if (typeof r === 'string' && r !== 'undefined/undefined/undefined' && r !== 'threw') __found.push(where + ':' + r);
  } catch {}
}
function reach(v, where = 'value', depth = 0) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function') || depth > 6) return;
  if (__seen.has(v)) return;
  __seen.add(v);
  try {
    let root = v, guard = 0;
    while (guard++ < 50) { const p = Object.getPrototypeOf(root); if (p === null) break; root = p; }
    if (root !== __ownRoot && root !== v) __found.push(where + ':foreign-realm');
  } catch {}
  if (typeof v === 'function') __tryFn(v.constructor, where + '.constructor');
  try { const c = v.constructor; if (typeof c === 'function') { __tryFn(c.constructor, where + '.constructor.constructor'); reach(c, where + '.constructor', depth + 1); } } catch {}
  try { reach(Object.getPrototypeOf(v), where + '.__proto__', depth + 1); } catch {}
  try { for (const k of Reflect.ownKeys(v)) { const d = Reflect.getOwnPropertyDescriptor(v, k); if (d && 'value' in d) reach(d.value, where + '.' + String(k), depth + 1); } } catch {}
}
function report() { text(__found.length === 0 ? 'safe' : 'ESCAPED ' + __found.join(' | ')); }
`;

async function probe(source: string, options: Parameters<typeof box.result>[1] = {}): Promise<string[]> {
  const { texts, errorText } = await box.result(PROBE + source + "\nreport()", options);
  if (errorText !== null) throw new Error(`probe cell failed: ${errorText}`);
  return texts;
}

describe("values the API returns or throws belong to the cell's realm", () => {
  it("global functions, ALL_TOOLS, tool promises, results and rejections", async () => {
    const rec = recorder(async (call) => {
      if (call.input === "fail") throw new Error("host error");
      return { nested: { list: [1, { deep: true }] } };
    });
    const texts = await probe(
      "for (const name of ['tools', 'ALL_TOOLS', 'text', 'image', 'audio', 'generatedImage', 'notify', 'yield_control', 'exit', 'store', 'load', 'setTimeout', 'clearTimeout', 'content', 'as_settled', 'stream_settled']) reach(globalThis[name], name);" +
        "const gen = as_settled([1, Promise.reject(2)]); reach(gen, 'as_settled()'); for await (const r of gen) reach(r, 'settled');" +
        "const p = tools.t({}); reach(p, 'promise'); reach(await p, 'result');" +
        "try { await tools.t('fail') } catch (e) { reach(e, 'rejection'); text(typeof e) }" +
        "store('k', {a: [1]}); reach(load('k'), 'load'); reach(globalThis, 'globalThis');",
      { rec, tools: [tool("t")] },
    );
    expect(texts).toEqual(["string", "safe"]);
  });

  it("errors thrown by the API (serialization, validation, stack overflow inside it)", async () => {
    const texts = await probe(
      "const c = {}; c.c = c;" +
        "for (const f of [() => text(c), () => tools.t(1n), () => tools.t(() => 1), () => store('k', c), () => store(Symbol(), 1), () => setTimeout('x'), () => clearTimeout(1n), () => image(5), () => notify(' '), () => load(Symbol())]) {" +
        "  try { f() } catch (e) { reach(e, 'thrown') } }" +
        "const caught = [];" +
        "function deep(d) { try { deep(d + 1) } catch (e) { for (const g of [() => text('x'), () => tools.t({}), () => store('k', 1), () => setTimeout(() => {}), () => notify('n'), () => yield_control()]) { try { g() } catch (e2) { caught.push(e2) } } } }" +
        "deep(0); for (const e of caught) reach(e, 'overflow'); text(caught.length > 0)",
      { tools: [tool("t")] },
    );
    expect(texts.at(-1)).toBe("safe");
  });

  it("import() and eval'd import() reject with a plain string", async () => {
    const texts = await probe(
      "for (const f of [() => import('fs'), () => eval('import(\"fs\")'), () => new Function('return import(\"child_process\")')(), () => (0, eval)('import(\"os\")')]) {" +
        "  try { await f() } catch (e) { text(typeof e); reach(e, 'import') } }",
    );
    expect(texts).toEqual(["string", "string", "string", "string", "safe"]);
  });
});

describe("stack introspection", () => {
  it("Error.prepareStackTrace call sites expose no worker functions or receivers", async () => {
    const texts = await probe(
      "const grab = [];" +
        "Error.prepareStackTrace = (e, sites) => { for (const s of sites) { try { grab.push(s.getThis(), s.getFunction(), s) } catch {} } return 'x' };" +
        "const capture = () => { new Error().stack };" +
        "capture();" +
        "setTimeout(capture, 0); await new Promise((r) => setTimeout(r, 5));" +
        "text({ toJSON() { capture(); return 1 } });" +
        "const v = await tools.t({ get a() { capture(); return 1 } }); capture();" +
        "store('k', { get a() { capture(); return 1 } });" +
        "for (const g of grab) reach(g, 'callsite');",
      { tools: [tool("t")] },
    );
    expect(texts.at(-1)).toBe("safe");
  });

  it("a replaced global Error or Error.captureStackTrace gets no worker call sites either", async () => {
    const texts = await probe(
      "const grab = []; const OriginalError = Error;" +
        "const collect = (e, sites) => { for (const s of sites) { grab.push(s); try { grab.push(s.getThis(), s.getFunction()) } catch {} } return 'x' };" +
        "const fake = function () {}; fake.prepareStackTrace = collect;" +
        "try { globalThis.Error = fake } catch (e) { text(e instanceof TypeError) }" +
        "try { Object.defineProperty(globalThis, 'Error', { value: fake }) } catch (e) { text(e instanceof TypeError) }" +
        "try { delete Error.prepareStackTrace } catch (e) { text(e instanceof TypeError) }" +
        "new OriginalError('a').stack; new TypeError('b').stack; try { null.x } catch (e) { e.stack }" +
        "OriginalError.prepareStackTrace = collect;" +
        "const holder = {}; OriginalError.captureStackTrace(holder); holder.stack;" +
        "setTimeout(() => { new RangeError('t').stack }, 0); await new Promise((r) => setTimeout(r, 5));" +
        "OriginalError.prepareStackTrace = undefined;" +
        "for (const g of grab) reach(g, 'site');",
    );
    expect(texts).toEqual(["true", "true", "true", "safe"]);
  });

  it("arguments.callee.caller from sloppy callbacks reaches nothing outside the cell", async () => {
    const texts = await probe(
      "const callers = [];" +
        "const sloppy = Function('callers', 'return function probe() { let f = arguments.callee.caller, n = 0; while (f && n++ < 20) { callers.push(f); try { f = f.caller } catch { break } } return 1 }')(callers);" +
        "setTimeout(sloppy, 0); await new Promise((r) => setTimeout(r, 5));" +
        "text({ toJSON: sloppy }); store('k', { toJSON: sloppy }); await tools.t({ toJSON: sloppy });" +
        "await new Promise((r) => r()).then(sloppy);" +
        "for (const c of callers) reach(c, 'caller'); text(callers.every((c) => typeof c === 'function'));",
      { tools: [tool("t")] },
    );
    expect(texts.at(-1)).toBe("safe");
  });

  it("error stacks name no worker files", async () => {
    const { texts } = await box.result(
      "setTimeout(() => text(new Error('x').stack), 0); await new Promise((r) => setTimeout(r, 5)); try { text(c) } catch (e) { text(e.stack) }",
    );
    for (const stack of texts) {
      expect(stack).toMatch(/^(Error: x|ReferenceError: c is not defined)\n {4}at exec_main.mjs:1:\d+/);
      expect(stack).not.toMatch(/node:|worker/);
    }
  });
});

describe("values the cell passes out run only inside the cell", () => {
  it("Proxy traps and getters see only cell-realm arguments", async () => {
    const texts = await probe(
      "const args = [];" +
        "const handler = new Proxy({}, { get(_, trap) { return (...a) => { args.push(...a); return Reflect[trap](...a) } } });" +
        "const value = new Proxy({ a: 1, b: [1, 2] }, handler);" +
        "text(value); store('k', value); await tools.t(value); notify(value);" +
        "try { image(value) } catch {} try { audio(value) } catch {} try { generatedImage(value) } catch {}" +
        "const getters = { get x() { args.push(this); return 1 }, toJSON(key) { args.push(this, key); return { y: 2 } } };" +
        "text(getters); await tools.t(getters);" +
        "for (const a of args) reach(a, 'trap'); text(args.length > 0);",
      { tools: [tool("t")] },
    );
    expect(texts.at(-1)).toBe("safe");
  });

  it("a throwing Proxy only fails the cell", async () => {
    const { errorText } = await box.result("text(new Proxy({}, { ownKeys() { throw new Error('trap') } }))");
    expect(errorText).toMatch(/^Error: trap/);
  });
});

describe("eval and Function stay inside the cell's realm", () => {
  it("cannot find the worker's globals", async () => {
    const { texts } = await box.result(
      "text(eval('typeof process')); text((0, eval)('typeof require')); text(Function('return typeof process')());" +
        "text(Function('return this')() === globalThis); text(typeof Function('return this')().process);" +
        "text(globalThis.constructor.constructor('return typeof process')());" +
        "text(Object.getOwnPropertyNames(globalThis).filter((n) => /^(process|require|Buffer|module|exports|global|console|parentPort|workerData|host)$/.test(n)).join())",
    );
    expect(texts).toEqual(["undefined", "undefined", "undefined", "true", "undefined", "undefined", ""]);
  });

  it("a thrown value the cell catches from a failed compile is the cell's", async () => {
    const texts = await probe(
      "try { eval('a b') } catch (e) { reach(e, 'eval') } try { new Function('}') } catch (e) { reach(e, 'Function') }",
    );
    expect(texts.at(-1)).toBe("safe");
  });
});

describe("cells cannot see each other", () => {
  it("prototype pollution and globals do not leak into the next cell or break it", async () => {
    const session = box.session();
    const rec = recorder();
    const polluter = box.start(
      session,
      "Object.prototype.polluted = 1; Array.prototype.push = () => 0; JSON.stringify = () => 'x'; JSON.parse = () => 'y';" +
        "Map.prototype.get = () => undefined; Function.prototype.call = () => 0; Reflect.apply = () => 0;" +
        "String.prototype.trim = () => ''; globalThis.leak = 'from cell 1'; text('polluted')",
      { rec, tools: [tool("t")] },
    );
    expect(await polluter.initial).toMatchObject({ kind: "result", errorText: null });
    for (let i = 0; i < 4; i++) {
      const next = await box.start(
        session,
        "text(String(({}).polluted)); text(typeof leak); text(JSON.stringify([1])); const r = await tools.t({ v: 1 }); text(r.v); notify(' x ');" +
          "await new Promise((r) => setTimeout(r, 1)); text(load('nothing') === undefined)",
        { rec, tools: [tool("t")] },
      ).initial;
      expect(next).toMatchObject({ kind: "result", errorText: null });
      expect(next.items.map((item) => (item.type === "input_text" ? item.text : ""))).toEqual([
        "undefined",
        "undefined",
        "[1]",
        "1",
        "true",
      ]);
    }
    await session.close();
  });

  it("a cell that breaks its own builtins cannot make the runtime hand it worker functions", async () => {
    // Replacing Promise.prototype.then keeps the cell from completing: it yields instead. The yield timer runs on a
    // fake clock, moved once the cell's last notification is in (it comes after its text on the pipe).
    useFakeClock();
    const session = box.session();
    const rec = recorder();
    const cell = box.start(
      session,
      PROBE +
        "const got = [];" +
        "const thief = function (...a) { got[got.length] = this; for (let i = 0; i < a.length; i++) got[got.length] = a[i]; return undefined };" +
        "const targets = [[Promise.prototype, 'then'], [Promise, 'resolve'], [Map.prototype, 'get'], [Map.prototype, 'set'], [Map.prototype, 'delete']," +
        "  [Function.prototype, 'call'], [Function.prototype, 'apply'], [Function.prototype, 'bind'], [JSON, 'parse'], [JSON, 'stringify']," +
        "  [Object, 'defineProperty'], [Object, 'keys'], [Array.prototype, 'push'], [String.prototype, 'toLowerCase'], [String.prototype, 'trim'], [RegExp.prototype, 'test']];" +
        "const saved = targets.map(([o, k]) => o[k]);" +
        "for (const [o, k] of targets) o[k] = thief;" +
        "try { tools.t({}) } catch {} try { setTimeout(() => {}, 1) } catch {} try { store('k', 1) } catch {} try { load('k') } catch {}" +
        "try { text('x') } catch {} try { image('data:x', 'LOW') } catch {} try { notify('n') } catch {}" +
        "await new Promise((r) => setTimeout(r, 5));" +
        "targets.forEach(([o, k], i) => { o[k] = saved[i] });" +
        "for (const g of got) reach(g, 'stolen'); report(); notify('probed')",
      { tools: [tool("t")], rec, yieldTimeMs: 100 },
    );
    await waitFor(() => rec.notifications.includes("probed"), { what: "the cell's last notification" });
    await vi.advanceTimersByTimeAsync(100);
    vi.useRealTimers();
    const observation = await cell.initial;
    expect(observation.kind).toBe("yielded");
    const items = observation.kind === "yielded" ? observation.items : [];
    const texts = items.map((item) => (item.type === "input_text" ? item.text : ""));
    expect(texts.at(-1)).toBe("safe");
    await session.close();
  });

  it("a cell that replaces Promise.prototype.then is contained: it yields, is terminated, and the next cell works", async () => {
    // The yield timer runs on a fake clock, moved once `x` is in (the notification comes after it on the pipe).
    useFakeClock();
    const session = box.session();
    const rec = recorder();
    const cell = box.start(
      session,
      "text('x'); notify('x is out'); Promise.prototype.then = function () { return 'hijacked' }",
      { yieldTimeMs: 100, rec },
    );
    await waitFor(() => rec.notifications.length === 1, { what: "the cell's notification" });
    await vi.advanceTimersByTimeAsync(100);
    vi.useRealTimers();
    expect(await cell.initial).toEqual({ kind: "yielded", cellId: "1", items: [{ type: "input_text", text: "x" }] });
    expect(await session.terminate("1")).toMatchObject({ kind: "observation", observation: { kind: "terminated" } });
    const next = await box.start(session, "text(await Promise.resolve('fine'))").initial;
    expect(next).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "fine" }], errorText: null });
    await session.close();
  });

  it("timers and pending promises of a finished cell never run into the next cell", async () => {
    const session = box.session();
    let answer!: () => void;
    const first = await box.start(
      session,
      "setTimeout(() => text('ghost'), 30); setTimeout(() => { throw new Error('ghost error') }, 30); tools.t({}).then(() => text('ghost tool')); text('first')",
      {
        tools: [tool("t")],
        rec: recorder(() => new Promise((resolve) => (answer = () => resolve(1)))),
      },
    ).initial;
    expect(first).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "first" }] });
    // The first cell's tool answer comes once the second cell runs; its timers fall due during the second cell.
    const running = recorder();
    running.callbacks.notify = async () => answer();
    const second = await box.start(
      session,
      "notify('running'); await new Promise((r) => setTimeout(r, 80)); text('second')",
      { rec: running },
    ).initial;
    expect(second).toMatchObject({ kind: "result", items: [{ type: "input_text", text: "second" }], errorText: null });
    await session.close();
  });

  it("sessions never share stores", async () => {
    const a = box.session();
    const b = box.session();
    await box.start(a, "store('secret', 42)").initial;
    const seen = await box.start(b, "text(String(load('secret')))").initial;
    expect(seen.items).toEqual([{ type: "input_text", text: "undefined" }]);
    await Promise.all([a.close(), b.close()]);
  });
});
