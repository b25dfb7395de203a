// The JavaScript API inside a cell (host spec §7). `cellRuntime` is evaluated INSIDE the cell's
// vm context (as `String(cellRuntime)`), so every object it creates belongs to the cell's realm.
// It must stay self-contained: no imports, no references to anything outside its body.
// It talks to the worker only through `host(op, a, b)`, passing and receiving primitives.

/** Operations the runtime asks of the worker; every argument and result is a primitive. */
export type HostCall = (op: string, a?: string | number, b?: string | number) => string | number | undefined;

/** What the worker calls on a cell's runtime. Arguments and results are primitives. */
export interface RuntimeApi {
  /** Installs the globals; `toolsJson` is `[{name, description}]`, `storeJson` `{key: json}`. */
  setup(toolsJson: string, storeJson: string): void;
  deliverTool(callId: number, ok: boolean, payload: string | undefined): void;
  fireTimer(id: number): void;
  /** `error_text` for a thrown value (§7.1); empty string for the exit sentinel. */
  describe(value: unknown): string;
  /** `{key: json}` of the keys this cell wrote. */
  storeWrites(): string;
}

export function cellRuntime(host: HostCall): RuntimeApi {
  "use strict";
  const g = globalThis as Record<string, unknown>;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const PromiseCtor = Promise;
  const StringCtor = String;
  const NumberCtor = Number;
  const objectKeys = Object.keys;
  const hasOwn = Object.prototype.hasOwnProperty;
  const toStringTag = Object.prototype.toString;
  const isFiniteNumber = Number.isFinite;
  const trunc = Math.trunc;
  const regexTest = RegExp.prototype.test;
  const callFn = Function.prototype.call;
  const test = (re: RegExp, s: string): boolean => callFn.call(regexTest, re, s) as boolean;

  for (const name of ["console", "Atomics", "SharedArrayBuffer", "WebAssembly"]) delete g[name];

  /** Thrown by `exit()` (and when the cell is stopped by the worker) to unwind; never reported. */
  const EXIT = Object.freeze(Object.create(null)) as object;
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
    const lower = detail.toLowerCase();
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
    checkStop(host("image", url, chosen));
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
    checkStop(host("audio", url));
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
    checkStop(host("image", url, "high"));
    if (typeof hint === "string") checkStop(host("text", hint));
    return undefined;
  };

  const text = (value?: unknown): undefined => {
    checkStop(host("text", toText(value)));
    return undefined;
  };

  const notify = (value?: unknown): undefined => {
    const message = toText(value);
    if (message.trim() === "") throw "notify expects non-empty text";
    checkStop(host("notify", message));
    return undefined;
  };

  const yieldControl = (): undefined => {
    host("yield");
    return undefined;
  };

  const exit = (): never => {
    host("exit");
    throw EXIT;
  };

  // Timers: the worker owns the real timers; callbacks stay here, in the cell's realm.
  const timers = new Map<number, () => unknown>();
  let nextTimerId = 1;
  const setTimeoutFn = (callback?: unknown, delay?: unknown): number => {
    if (typeof callback !== "function") throw "setTimeout expects a function callback";
    let ms = NumberCtor(delay);
    if (!isFiniteNumber(ms) || ms <= 0) ms = 0;
    ms = trunc(ms);
    const id = nextTimerId++;
    timers.set(id, callback as () => unknown);
    host("setTimer", id, ms);
    return id;
  };
  const clearTimeoutFn = (id?: unknown): undefined => {
    if (typeof id === "symbol" || typeof id === "bigint") throw "clearTimeout expects a numeric timeout id";
    if (id === undefined || id === null) return undefined;
    const key = NumberCtor(id);
    if (timers.delete(key)) host("clearTimer", key);
    return undefined;
  };

  // Store: a private snapshot per cell; only written keys are committed by the worker.
  let snapshot: Record<string, string> = Object.create(null);
  const written: Record<string, string> = Object.create(null);
  const storeKey = (key: unknown, fn: string): string => {
    if (typeof key === "symbol") throw fn + " key must be a string";
    return StringCtor(key);
  };
  const store = (key?: unknown, value?: unknown): undefined => {
    const k = storeKey(key, "store");
    if (value === undefined) throw 'Unable to store "' + k + '". Only plain serializable objects can be stored.';
    const json = stringify(value);
    if (typeof json !== "string") throw FAILED_SERIALIZE;
    snapshot[k] = json;
    written[k] = json;
    return undefined;
  };
  const load = (key?: unknown): unknown => {
    const k = storeKey(key, "load");
    return callFn.call(hasOwn, snapshot, k) ? parse(snapshot[k]!) : undefined;
  };

  // Tools.
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  const normalizeName = (name: string): string => {
    if (name === "") return "_";
    let out = "";
    for (let i = 0; i < name.length; i++) {
      const ch = name[i]!;
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
      const callId = host("tool", index, json);
      return new PromiseCtor((resolve, reject) => {
        if (typeof callId === "number") pending.set(callId, { resolve, reject });
      });
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
      return typeof s === "string" ? s : (callFn.call(toStringTag, value) as string);
    } catch {
      return callFn.call(toStringTag, value) as string;
    }
  };

  const define = (name: string, value: unknown): void => {
    Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
  };

  return {
    setup(toolsJson: string, storeJson: string): void {
      const list = parse(toolsJson) as { name: string; description: string }[];
      const tools: Record<string, unknown> = {};
      const all: { name: string; description: string }[] = [];
      for (let i = 0; i < list.length; i++) {
        const name = normalizeName(list[i]!.name);
        tools[name] = makeTool(i);
        all.push({ name, description: list[i]!.description });
      }
      snapshot = parse(storeJson) as Record<string, string>;
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
    },
    deliverTool(callId: number, ok: boolean, payload: string | undefined): void {
      const entry = pending.get(callId);
      if (entry === undefined) return;
      pending.delete(callId);
      if (ok) entry.resolve(payload === undefined ? undefined : parse(payload));
      else entry.reject(payload === undefined ? "" : payload);
    },
    fireTimer(id: number): void {
      const callback = timers.get(id);
      if (callback === undefined) return;
      timers.delete(id);
      try {
        callFn.call(callback, undefined);
      } catch (error) {
        if (error !== EXIT) host("fail", describe(error));
      }
    },
    describe,
    storeWrites(): string {
      const keys = objectKeys(written);
      return keys.length === 0 ? "{}" : (stringify(written) as string);
    },
  };
}
