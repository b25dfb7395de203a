// The JavaScript API inside a cell (host spec §7). `cellRuntime` is evaluated INSIDE the cell's
// vm context (as `String(cellRuntime)`), so every object it creates belongs to the cell's realm.
// It must stay self-contained: no imports, no references to anything outside its body.
// It talks to the worker only through `host(op, a, b)`, passing and receiving primitives.

/** Operations the runtime asks of the worker; every argument and result is a primitive. */
export type HostCall = (op: string, a?: string | number, b?: string | number) => string | number | undefined;

/** What the worker calls on a cell's runtime. Arguments and results are primitives. */
export interface RuntimeApi {
  /**
   * Installs the globals; `toolsJson` is `[{name, description}]`, `storeJson` `{key: json}`,
   * `storeSize` the store's charged size and `storeQuota` its limit (UTF-16 units of keys and values).
   */
  setup(toolsJson: string, storeJson: string, storeSize: number, storeQuota: number): void;
  deliverTool(callId: number, ok: boolean, payload: string | undefined): void;
  fireTimer(id: number): void;
  /** Runs the compiled cell (an async function); reports completion through `done` or `fail`. */
  run(main: unknown): void;
  /** `{key: json}` of the keys this cell wrote. */
  storeWrites(): string;
}

export function cellRuntime(host: HostCall): RuntimeApi {
  "use strict";
  const g = globalThis as Record<string, unknown>;
  // Builtins are captured before cell code runs: the cell may replace anything in its realm.
  const uncurry = Function.prototype.bind.bind(Function.prototype.call) as <A extends unknown[], R>(
    fn: (...args: A) => R,
  ) => (self: unknown, ...args: A) => R;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const PromiseCtor = Promise;
  const promiseThen = uncurry(Promise.prototype.then) as (
    p: Promise<unknown>,
    f: (v: unknown) => unknown,
    r: (e: unknown) => unknown,
  ) => Promise<unknown>;
  const resolved = Promise.resolve.bind(Promise) as (value?: unknown) => Promise<unknown>;
  const StringCtor = String;
  const NumberCtor = Number;
  const RangeErrorCtor = RangeError;
  const objectKeys = Object.keys;
  const defineProperty = Object.defineProperty;
  const createObject = Object.create;
  const hasOwn = uncurry(Object.prototype.hasOwnProperty) as (o: object, k: string) => boolean;
  const objectToString = uncurry(Object.prototype.toString) as (v: unknown) => string;
  const regexTest = uncurry(RegExp.prototype.test) as (re: RegExp, s: string) => boolean;
  const toLowerCase = uncurry(String.prototype.toLowerCase) as (s: string) => string;
  const trim = uncurry(String.prototype.trim) as (s: string) => string;
  const charAt = uncurry(String.prototype.charAt) as (s: string, i: number) => string;
  const arrayPush = uncurry(Array.prototype.push) as (a: unknown[], v: unknown) => number;
  const isFiniteNumber = Number.isFinite;
  const trunc = Math.trunc;
  const test = (re: RegExp, s: string): boolean => regexTest(re, s);
  const MapCtor = Map;
  const mapGet = uncurry(Map.prototype.get) as <V>(m: Map<number, V>, k: number) => V | undefined;
  const mapSet = uncurry(Map.prototype.set) as <V>(m: Map<number, V>, k: number, v: V) => unknown;
  const mapDelete = uncurry(Map.prototype.delete) as <V>(m: Map<number, V>, k: number) => boolean;

  /** Calls the worker. A failure there (a stack overflow) must not hand the cell a worker error. */
  const call = (op: string, a?: string | number, b?: string | number): string | number | undefined => {
    try {
      return host(op, a, b);
    } catch {
      throw new RangeErrorCtor("Maximum call stack size exceeded");
    }
  };

  // Host spec §7.1: absent globals. Some runtimes (Deno) add more to a fresh context than Node.
  const ABSENT = [
    "console",
    "Atomics",
    "SharedArrayBuffer",
    "WebAssembly",
    "require",
    "process",
    "Buffer",
    "fetch",
    "setInterval",
    "clearInterval",
    "setImmediate",
    "clearImmediate",
    "queueMicrotask",
    "structuredClone",
    "TextEncoder",
    "TextDecoder",
    "Temporal",
    "navigator",
    "global",
  ];
  for (let i = 0; i < ABSENT.length; i++) {
    const name = ABSENT[i]!;
    delete g[name];
    if (name in g) Object.defineProperty(g, name, { value: undefined, writable: true, configurable: true });
  }

  // The stack trace API hands `Error.prepareStackTrace` raw call sites, which some runtimes
  // (Deno) create in the worker's realm. The cell's function only ever sees copies made here,
  // holding primitives.
  const SITE_METHODS = [
    "getThis",
    "getTypeName",
    "getFunction",
    "getFunctionName",
    "getMethodName",
    "getFileName",
    "getLineNumber",
    "getColumnNumber",
    "getEvalOrigin",
    "isToplevel",
    "isEval",
    "isNative",
    "isConstructor",
    "isAsync",
    "isPromiseAll",
    "getPromiseIndex",
    "getScriptNameOrSourceURL",
    "getScriptHash",
    "getEnclosingColumnNumber",
    "getEnclosingLineNumber",
    "getPosition",
    "toString",
  ];
  const reflectApply = Reflect.apply;
  const copySite = (site: Record<string, unknown>): Record<string, () => unknown> => {
    const copy: Record<string, () => unknown> = {};
    for (let i = 0; i < SITE_METHODS.length; i++) {
      const name = SITE_METHODS[i]!;
      let value: unknown;
      try {
        const method = site[name];
        if (typeof method === "function") value = reflectApply(method as () => unknown, site, []);
      } catch {
        value = undefined;
      }
      if (value !== null && (typeof value === "object" || typeof value === "function")) value = undefined;
      copy[name] = () => value;
    }
    return copy;
  };
  let userPrepare: unknown;
  const prepareStackTrace = function (error: unknown, sites: ArrayLike<Record<string, unknown>>): unknown {
    const copies: unknown[] = [];
    const length = typeof sites === "object" && sites !== null ? sites.length : 0;
    for (let i = 0; i < length; i++) copies[i] = copySite(sites[i]!);
    return reflectApply(userPrepare as (...args: unknown[]) => unknown, ErrorCtor, [error, copies]);
  };
  const ErrorCtor = Error;
  // Runtimes look `Error.prepareStackTrace` up on the global `Error`: it stays this one.
  defineProperty(g, "Error", { value: ErrorCtor, writable: false, configurable: false, enumerable: false });
  defineProperty(ErrorCtor, "prepareStackTrace", {
    configurable: false,
    enumerable: false,
    get: () => (typeof userPrepare === "function" ? prepareStackTrace : userPrepare),
    set: (value: unknown) => {
      userPrepare = value;
    },
  });

  /** Thrown by `exit()` (and when the cell is stopped by the worker) to unwind; never reported. */
  const EXIT = Object.freeze(createObject(null)) as object;
  const FAILED_SERIALIZE = "failed to serialize JavaScript value: expected value at line 1 column 1";

  const checkStop = (result: unknown): void => {
    if (result === 1) throw EXIT;
  };

  const toText = (value: unknown): string => {
    switch (typeof value) {
      case "string":
        return value;
      case "number":
      case "boolean":
      case "bigint":
        return StringCtor(value);
      case "undefined":
        return "undefined";
      default: {
        if (value === null) return "null";
        const json = stringify(value);
        return typeof json === "string" ? json : "undefined";
      }
    }
  };

  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && (typeof value === "object" || typeof value === "function");

  const IMAGE_INPUT =
    "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";
  const AUDIO_INPUT = "audio expects a non-empty audio URL string, an object with audio_url, or a raw MCP audio block";

  const checkImageUrl = (url: string): void => {
    if (test(/^https?:/i, url)) {
      throw "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead";
    }
    if (!test(/^data:/i, url)) throw "Tool call failed: invalid image output. Pass a base64 data URI instead";
  };

  const normalizeDetail = (detail: unknown): string => {
    if (detail === undefined || detail === null) return "high";
    if (typeof detail !== "string") throw "image detail must be a string when provided";
    const lower = toLowerCase(detail);
    if (lower !== "auto" && lower !== "low" && lower !== "high" && lower !== "original") {
      throw "image detail must be one of: auto, low, high, original";
    }
    return lower;
  };

  const mcpDataUrl = (block: Record<string, unknown>): string | undefined => {
    const data = block.data;
    if (typeof data !== "string") return undefined;
    const mime = typeof block.mimeType === "string" ? block.mimeType : block.mime_type;
    return "data:" + (typeof mime === "string" && mime !== "" ? mime : "application/octet-stream") + ";base64," + data;
  };

  const image = (urlOrItem?: unknown, detail?: unknown): undefined => {
    let url: string | undefined;
    let embedded: unknown;
    if (typeof urlOrItem === "string") {
      if (urlOrItem !== "") url = urlOrItem;
    } else if (isObject(urlOrItem)) {
      if (typeof urlOrItem.image_url === "string") {
        if (urlOrItem.image_url !== "") url = urlOrItem.image_url;
        embedded = urlOrItem.detail;
      } else if (urlOrItem.type === "image") {
        url = mcpDataUrl(urlOrItem);
        const meta = urlOrItem._meta;
        if (isObject(meta)) embedded = meta["codex/imageDetail"];
      }
    }
    if (url === undefined) throw IMAGE_INPUT;
    const chosen = normalizeDetail(detail !== undefined && detail !== null ? detail : embedded);
    checkImageUrl(url);
    checkStop(call("image", url, chosen));
    return undefined;
  };

  const audio = (urlOrItem?: unknown): undefined => {
    let url: string | undefined;
    if (typeof urlOrItem === "string") {
      if (urlOrItem !== "") url = urlOrItem;
    } else if (isObject(urlOrItem)) {
      if (typeof urlOrItem.audio_url === "string") {
        if (urlOrItem.audio_url !== "") url = urlOrItem.audio_url;
      } else if (urlOrItem.type === "audio") {
        url = mcpDataUrl(urlOrItem);
      }
    }
    if (url === undefined) throw AUDIO_INPUT;
    if (!test(/^data:/i, url)) throw "Tool call failed: invalid audio output. Pass a base64 data URI instead";
    checkStop(call("audio", url));
    return undefined;
  };

  const generatedImage = (result?: unknown): undefined => {
    if (!isObject(result) || typeof result.image_url !== "string" || result.image_url === "") {
      throw "generatedImage expects an image generation result object";
    }
    const url = result.image_url;
    const hint = result.output_hint;
    if (hint !== undefined && hint !== null && typeof hint !== "string") {
      throw "generatedImage output_hint must be a string when provided";
    }
    checkImageUrl(url);
    checkStop(call("image", url, "high"));
    if (typeof hint === "string") checkStop(call("text", hint));
    return undefined;
  };

  const text = (value?: unknown): undefined => {
    checkStop(call("text", toText(value)));
    return undefined;
  };

  const notify = (value?: unknown): undefined => {
    const message = toText(value);
    if (trim(message) === "") throw "notify expects non-empty text";
    checkStop(call("notify", message));
    return undefined;
  };

  const yieldControl = (): undefined => {
    call("yield");
    return undefined;
  };

  const exit = (): never => {
    call("exit");
    throw EXIT;
  };

  // Timers: the worker owns the real timers; callbacks stay here, in the cell's realm.
  const timers = new MapCtor<number, () => unknown>();
  let nextTimerId = 1;
  const setTimeoutFn = (callback?: unknown, delay?: unknown): number => {
    if (typeof callback !== "function") throw "setTimeout expects a function callback";
    let ms = NumberCtor(delay);
    if (!isFiniteNumber(ms) || ms <= 0) ms = 0;
    ms = trunc(ms);
    const id = nextTimerId++;
    mapSet(timers, id, callback as () => unknown);
    call("setTimer", id, ms);
    return id;
  };
  const clearTimeoutFn = (id?: unknown): undefined => {
    if (typeof id === "symbol" || typeof id === "bigint") throw "clearTimeout expects a numeric timeout id";
    if (id === undefined || id === null) return undefined;
    const key = NumberCtor(id);
    if (mapDelete(timers, key)) call("clearTimer", key);
    return undefined;
  };

  // Store: a private snapshot per cell; only written keys are committed by the worker.
  const snapshot: Record<string, string> = createObject(null);
  const written: Record<string, string> = createObject(null);
  let storeSize = 0;
  let storeQuota = Infinity;
  const storeKey = (key: unknown, fn: string): string => {
    if (typeof key === "symbol") throw fn + " key must be a string";
    return StringCtor(key);
  };
  const store = (key?: unknown, value?: unknown): undefined => {
    const k = storeKey(key, "store");
    if (value === undefined) throw 'Unable to store "' + k + '". Only plain serializable objects can be stored.';
    const json = stringify(value);
    if (typeof json !== "string") throw FAILED_SERIALIZE;
    const size = storeSize + json.length + (hasOwn(snapshot, k) ? -snapshot[k]!.length : k.length);
    if (size > storeQuota) {
      throw 'exec store quota exceeded: storing "' + k + '" would bring the session store to ' + size +
        " characters (limit " + storeQuota + ")";
    }
    storeSize = size;
    snapshot[k] = json;
    written[k] = json;
    return undefined;
  };
  const load = (key?: unknown): unknown => {
    const k = storeKey(key, "load");
    return hasOwn(snapshot, k) ? parse(snapshot[k]!) : undefined;
  };

  // Tools.
  const pending = new MapCtor<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  const normalizeName = (name: string): string => {
    if (name === "") return "_";
    let out = "";
    for (let i = 0; i < name.length; i++) {
      const ch = charAt(name, i);
      out += test(/[A-Za-z0-9_$]/, ch) && !(i === 0 && test(/[0-9]/, ch)) ? ch : "_";
    }
    return out;
  };
  const makeTool = (index: number) =>
    function (input?: unknown): Promise<unknown> {
      let json: string | undefined = "null";
      if (input !== undefined && input !== null) {
        json = stringify(input);
        if (typeof json !== "string") throw FAILED_SERIALIZE;
      }
      const callId = call("tool", index, json);
      return new PromiseCtor((resolve, reject) => {
        if (callId === -1) reject("code-mode host has too many pending delegate calls");
        else if (typeof callId === "number") mapSet(pending, callId, { resolve, reject });
      });
    };

  // Optional extras of host spec §7.2 (not advertised by Codex 0.171.0).
  const content = (block?: unknown): undefined => {
    if (isObject(block)) {
      if (block.type === "text" && typeof block.text === "string") return text(block.text);
      if (block.type === "image" && typeof block.data === "string") return image(block);
      if (block.type === "audio" && typeof block.data === "string") return audio(block);
    }
    throw "content expects one MCP ContentBlock";
  };

  type Settled = { index: number; status: "fulfilled"; value: unknown } | {
    index: number;
    status: "rejected";
    reason: unknown;
  };
  async function* asSettled(promises?: Iterable<unknown>): AsyncGenerator<Settled> {
    const list: unknown[] = [];
    for (const promise of promises as Iterable<unknown>) arrayPush(list, promise);
    const settled: Settled[] = [];
    let wake: (() => void) | null = null;
    const push = (entry: Settled): void => {
      arrayPush(settled, entry);
      const waiting = wake;
      wake = null;
      waiting?.();
    };
    for (let i = 0; i < list.length; i++) {
      promiseThen(
        resolved(list[i]),
        (value) => push({ index: i, status: "fulfilled", value }),
        (reason) => push({ index: i, status: "rejected", reason }),
      );
    }
    for (let next = 0; next < list.length; next++) {
      if (next >= settled.length) await new PromiseCtor<void>((resolve) => (wake = resolve));
      yield settled[next]!;
    }
  }
  const streamSettled = async (promises?: Iterable<unknown>, emit?: unknown): Promise<void> => {
    if (typeof emit !== "function") throw "stream_settled expects an emit function";
    for await (const entry of asSettled(promises)) await (emit as (entry: Settled) => unknown)(entry);
  };

  const describe = (value: unknown): string => {
    if (value === EXIT) return "";
    try {
      if (isObject(value)) {
        const stack = value.stack;
        if (typeof stack === "string") return stack;
      }
    } catch {
      // A throwing `stack` getter falls back to String(value).
    }
    try {
      const s = StringCtor(value);
      return typeof s === "string" ? s : objectToString(value);
    } catch {
      return objectToString(value);
    }
  };

  const define = (name: string, value: unknown): void => {
    defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
  };

  return {
    setup(toolsJson: string, storeJson: string, size: number, quota: number): void {
      storeSize = size;
      storeQuota = quota;
      const list = parse(toolsJson) as { name: string; description: string }[];
      const tools: Record<string, unknown> = {};
      const all: { name: string; description: string }[] = [];
      for (let i = 0; i < list.length; i++) {
        const name = normalizeName(list[i]!.name);
        tools[name] = makeTool(i);
        arrayPush(all, { name, description: list[i]!.description });
      }
      const stored = parse(storeJson) as Record<string, string>;
      const keys = objectKeys(stored);
      for (let i = 0; i < keys.length; i++) snapshot[keys[i]!] = stored[keys[i]!]!;
      define("tools", tools);
      define("ALL_TOOLS", all);
      define("text", text);
      define("image", image);
      define("audio", audio);
      define("generatedImage", generatedImage);
      define("notify", notify);
      define("yield_control", yieldControl);
      define("exit", exit);
      define("store", store);
      define("load", load);
      define("setTimeout", setTimeoutFn);
      define("clearTimeout", clearTimeoutFn);
      define("content", content);
      define("as_settled", asSettled);
      define("stream_settled", streamSettled);
    },
    run(main: unknown): void {
      // The cell function is the reaction itself, so no frame of ours sits below the cell's.
      // (Adopting its promise looks `then` up again: a cell that replaces Promise.prototype.then
      // never completes and ends at its yield timer or a terminate.)
      const completion = promiseThen(resolved(), main as (v: unknown) => unknown, undefined as never);
      promiseThen(
        completion,
        () => call("done"),
        (error) => {
          if (error !== EXIT) call("fail", describe(error));
        },
      );
    },
    deliverTool(callId: number, ok: boolean, payload: string | undefined): void {
      const entry = mapGet(pending, callId);
      if (entry === undefined) return;
      mapDelete(pending, callId);
      if (ok) entry.resolve(payload === undefined ? undefined : parse(payload));
      else entry.reject(payload === undefined ? "" : payload);
    },
    fireTimer(id: number): void {
      const callback = mapGet(timers, id);
      if (callback === undefined) return;
      mapDelete(timers, id);
      // From a microtask, like `run`, so that the callback's stack shows no worker frames.
      promiseThen(resolved(), () => {
        try {
          callback();
        } catch (error) {
          if (error !== EXIT) call("fail", describe(error));
        }
      }, undefined as never);
    },
    storeWrites(): string {
      return objectKeys(written).length === 0 ? "{}" : (stringify(written) as string);
    },
  };
}
