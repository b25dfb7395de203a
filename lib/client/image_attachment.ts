// An image file the user names (`scv exec --image PATH`, `/image PATH` in chat) as a turn attachment: resolved to an
// absolute path, its type told by its first bytes (not its name), its size taken now. The server checks the rest.
import { open } from "node:fs/promises";
import path from "node:path";
import type { Attachment } from "../protocol/index.ts";

const SIGNATURES: Array<{ mime: string; matches: (head: Buffer) => boolean }> = [
  {
    mime: "image/png",
    matches: (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { mime: "image/jpeg", matches: (head) => head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff },
  { mime: "image/gif", matches: (head) => ["GIF87a", "GIF89a"].includes(head.subarray(0, 6).toString("latin1")) },
  {
    mime: "image/webp",
    matches: (head) =>
      head.subarray(0, 4).toString("latin1") === "RIFF" && head.subarray(8, 12).toString("latin1") === "WEBP",
  },
];

/** The attachment for the image at `file` (relative to `cwd`); throws with a one-line reason when it is not one. */
export async function imageAttachment(file: string, cwd: string): Promise<Attachment> {
  const absolute = path.resolve(cwd, file);
  let handle;
  try {
    handle = await open(absolute, "r");
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`image ${file} is not a regular file`);
    const head = Buffer.alloc(12);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const mime = SIGNATURES.find((signature) => signature.matches(head.subarray(0, bytesRead)))?.mime;
    if (mime === undefined) throw new Error(`image ${file} is not a PNG, JPEG, GIF or WebP file`);
    return { kind: "image", path: absolute, name: path.basename(absolute), mime, size: info.size };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new Error(`image ${file}: no such file`);
    if (code === "EACCES") throw new Error(`image ${file}: permission denied`);
    if (code === "EISDIR") throw new Error(`image ${file} is not a regular file`);
    throw error;
  } finally {
    await handle?.close();
  }
}
