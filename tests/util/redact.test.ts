// The shared redactor as an attacker would try to slip a key past it: encoded, escaped, embedded.
import { describe, expect, it } from "vitest";
import { createRedactor, REDACTED, redactSecrets } from "../../lib/util/redact.ts";

const KEY = "sk-live/AbC+123_xyz=?&";

describe("createRedactor", () => {
  const redact = createRedactor([KEY]);

  it("redacts the plain value, every occurrence", () => {
    expect(redact(`a ${KEY} b ${KEY}`)).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it("redacts percent-encoded forms: encodeURIComponent, lower-case hex, every byte encoded, mixed", () => {
    const everyByte = [...Buffer.from(KEY)].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("");
    const mixed = [...KEY].map((
      char,
      index,
    ) => (index % 2 === 0 ? encodeURIComponent(char) : `%${char.charCodeAt(0).toString(16)}`)).join("");
    for (
      const form of [
        encodeURIComponent(KEY),
        encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
        everyByte,
        mixed,
      ]
    ) {
      const out = redact(`https://x.test/?token=${form}&next=1`);
      expect(out, form).toBe(`https://x.test/?token=${REDACTED}&next=1`);
    }
  });

  it("redacts a space written as + in a form-encoded value", () => {
    expect(createRedactor(["pass word 123"])("q=pass+word+123")).toBe(`q=${REDACTED}`);
  });

  it("redacts base64 in both alphabets at every alignment (e.g. Basic auth with a user prefix)", () => {
    for (const prefix of ["", "u:", "user:", "ab"]) {
      for (const encoding of ["base64", "base64url"] as const) {
        const encoded = Buffer.from(`${prefix}${KEY}!!`).toString(encoding);
        const out = redact(`Authorization: Basic ${encoded}`);
        expect(out, `${prefix} ${encoding}`).toContain(REDACTED);
        // What is left around the redaction is too short to carry the key.
        expect(out.replace(REDACTED, "").length).toBeLessThan(`Authorization: Basic `.length + 12);
      }
    }
  });

  it("redacts the JSON-escaped form of a value with quotes and backslashes", () => {
    const tricky = 'pa"ss\\word-42';
    expect(createRedactor([tricky])(JSON.stringify({ v: tricky }))).toBe(`{"v":"${REDACTED}"}`);
  });

  it("leaves short values and unrelated text alone", () => {
    const short = createRedactor(["abc", ""]);
    expect(short("abc abc")).toBe("abc abc");
    expect(redact("nothing secret here: sk-live/AbC")).toBe("nothing secret here: sk-live/AbC");
  });

  it("redactSecrets honours minChars for exact short credentials", () => {
    expect(redactSecrets("key k1 is bad", ["k1"], { minChars: 1 })).toBe(`key ${REDACTED} is bad`);
    expect(redactSecrets("key k1 is bad", ["k1"])).toBe("key k1 is bad");
  });
});
