// Authenticode removal for a PE32+ executable: the certificate table is dropped and its data directory
// entry zeroed, so the binary is plainly unsigned after injection instead of carrying a broken signature.

const SECURITY_DIRECTORY = 4;

export interface PeSignature {
  offset: number;
  size: number;
  /** File offset of the security data directory entry. */
  entryOffset: number;
  checksumOffset: number;
}

/** Finds the certificate table of a PE32+ image; `undefined` when it carries none. */
export function findPeSignature(image: Uint8Array): PeSignature | undefined {
  const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
  if (image.length < 0x40 || view.getUint16(0, true) !== 0x5a4d) throw new Error("not a PE image (no MZ header)");
  const pe = view.getUint32(0x3c, true);
  if (pe + 24 > image.length || view.getUint32(pe, true) !== 0x00004550)
    throw new Error("not a PE image (no PE signature)");
  const optional = pe + 24;
  if (view.getUint16(optional, true) !== 0x20b) throw new Error("not a PE32+ image");
  const directories = view.getUint32(optional + 108, true);
  if (directories <= SECURITY_DIRECTORY) return undefined;
  const entryOffset = optional + 112 + SECURITY_DIRECTORY * 8;
  // For the security directory the "virtual address" is a file offset.
  const offset = view.getUint32(entryOffset, true);
  const size = view.getUint32(entryOffset + 4, true);
  if (offset === 0 || size === 0) return undefined;
  if (offset + size > image.length) throw new Error("the certificate table runs past the end of the file");
  return { offset, size, entryOffset, checksumOffset: optional + 64 };
}

/** A copy of `image` without its certificate table (unchanged when unsigned). */
export function removePeSignature(image: Uint8Array): Uint8Array {
  const signature = findPeSignature(image);
  if (signature === undefined) return image;
  const end = signature.offset + signature.size;
  // The table sits at the end of the file (8-byte aligned); anything after it would be an overlay we keep.
  if (image.subarray(end).some((byte) => byte !== 0)) throw new Error("data follows the certificate table");
  const out = image.slice(0, signature.offset);
  const view = new DataView(out.buffer);
  view.setUint32(signature.entryOffset, 0, true);
  view.setUint32(signature.entryOffset + 4, 0, true);
  view.setUint32(signature.checksumOffset, 0, true);
  return out;
}
