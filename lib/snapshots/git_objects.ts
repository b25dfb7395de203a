// Objects of a snapshot written in this process as one pack in git's format (git-scm.com/docs/gitformat-pack:
// a version 2 pack of whole, zlib-compressed objects and its version 2 index), and the trees of an index's entries
// as `git write-tree` builds them. One pack per snapshot: on this VM's disk a loose object (a file created and
// renamed each) cost 0.7–1.8 ms under load, 140–380 ms for a snapshot's 211 objects; its pack, 8–55 ms.
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { replaceFileSync } from "../util/replace_file.ts";

/** What a tree needs of an index entry: its path (bytes as latin1), git's mode and its object id. */
export type TreeEntry = { name: string; mode: number; oid: Buffer };

type ObjectType = "blob" | "tree";
type Packed = { oid: Buffer; type: ObjectType; size: number; compressed: Buffer };

const TREE_MODE = "40000";
const TYPE_CODES: Record<ObjectType, number> = { tree: 2, blob: 3 };

/** The objects of one snapshot, kept in memory until `write` puts them in the store as one pack. */
export class PackBuilder {
  readonly #objects = new Map<string, Packed>();

  get count(): number {
    return this.#objects.size;
  }

  /** Adds `content` as an object of `type` (once); returns its id. */
  add(type: ObjectType, content: Buffer): Buffer {
    const oid = createHash("sha1").update(`${type} ${content.length}\0`, "latin1").update(content).digest();
    const key = oid.toString("hex");
    if (!this.#objects.has(key))
      this.#objects.set(key, { oid, type, size: content.length, compressed: zlibStream(content) });
    return oid;
  }

  /**
   * Writes the pack and its index into `<objectsDir>/pack` (the index last: git sees a pack once its index is
   * there); nothing when no object was added. Objects the store already has are written again: git reads any copy.
   */
  write(objectsDir: string): void {
    if (this.#objects.size === 0) return;
    const objects = [...this.#objects.values()];
    const header = Buffer.alloc(12);
    header.write("PACK", 0, "latin1");
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(objects.length, 8);
    const chunks: Buffer[] = [header];
    let offset = header.length;
    const placed = objects.map((object) => {
      const entry = Buffer.concat([objectHeader(TYPE_CODES[object.type], object.size), object.compressed]);
      chunks.push(entry);
      const at = offset;
      offset += entry.length;
      return { oid: object.oid, offset: at, crc: crc32(entry) };
    });
    const body = Buffer.concat(chunks);
    const packSum = createHash("sha1").update(body).digest();
    const pack = Buffer.concat([body, packSum]);
    placed.sort((a, b) => Buffer.compare(a.oid, b.oid));
    const index = packIndex(placed, packSum);
    const folder = join(objectsDir, "pack");
    mkdirSync(folder, { recursive: true });
    const base = join(folder, `pack-${packSum.toString("hex")}`);
    replaceFileSync(`${base}.pack`, pack, 0o444);
    replaceFileSync(`${base}.idx`, index, 0o444);
    this.#objects.clear();
  }
}

/**
 * Adds the trees of `entries` (sorted as an index is) to `pack` and returns the root's id. `known` maps folders
 * (paths as latin1, "" for the root) to their tree of the last build; a folder not in `changed` keeps that tree
 * without being built again. `known` is brought up to date in place.
 */
export function buildTrees(
  pack: PackBuilder,
  entries: readonly TreeEntry[],
  known: Map<string, Buffer>,
  changed: ReadonlySet<string>,
): Buffer {
  let index = 0;
  const build = (prefix: string): Buffer => {
    // Each entry as `<mode> <name>\0` and its id, written into one buffer once the folder's size is known.
    const heads: string[] = [];
    const ids: Buffer[] = [];
    let size = 0;
    const add = (head: string, oid: Buffer) => {
      heads.push(head);
      ids.push(oid);
      size += head.length + oid.length;
    };
    while (index < entries.length && entries[index]!.name.startsWith(prefix)) {
      const entry = entries[index]!;
      const slash = entry.name.indexOf("/", prefix.length);
      if (slash < 0) {
        add(`${entry.mode.toString(8)} ${entry.name.slice(prefix.length)}\0`, entry.oid);
        index += 1;
        continue;
      }
      const folder = entry.name.slice(0, slash);
      const reused = changed.has(folder) ? undefined : known.get(folder);
      let oid: Buffer;
      if (reused === undefined) oid = build(`${folder}/`);
      else {
        oid = reused;
        const below = `${folder}/`;
        while (index < entries.length && entries[index]!.name.startsWith(below)) index += 1;
      }
      add(`${TREE_MODE} ${folder.slice(prefix.length)}\0`, oid);
    }
    const content = Buffer.allocUnsafe(size);
    let at = 0;
    heads.forEach((head, position) => {
      at += content.write(head, at, "latin1");
      at += ids[position]!.copy(content, at);
    });
    const oid = pack.add("tree", content);
    known.set(prefix.slice(0, -1), oid);
    return oid;
  };
  return build("");
}

/** Every folder above `path` (latin1), the root "" included: the trees a change of `path` changes. */
export function foldersAbove(path: string, into: Set<string>): void {
  let slash = path.lastIndexOf("/");
  while (slash > 0) {
    const folder = path.slice(0, slash);
    if (into.has(folder)) return;
    into.add(folder);
    slash = path.lastIndexOf("/", slash - 1);
  }
  into.add("");
}

/**
 * `content` as a zlib stream. Objects under STORE_BELOW bytes go in stored (uncompressed) blocks: each call of
 * node:zlib builds a stream object and a 256 KiB zlib state, and 211 of them cost 40–70 ms of CPU in garbage
 * collection on this VM; small objects (and trees, mostly 20-byte ids) gain little from compression. Larger ones
 * are deflated at level 1, git's own default for objects written one at a time (core.looseCompression).
 */
function zlibStream(content: Buffer): Buffer {
  if (content.length >= STORE_BELOW) return deflateSync(content, { level: 1 });
  // One stored block holds up to 65,535 bytes: more than STORE_BELOW.
  const stream = Buffer.alloc(2 + 5 + content.length + 4);
  stream[0] = 0x78; // deflate, 32 KiB window
  stream[1] = 0x01; // the check bits for that header, "fastest" level
  stream[2] = 1; // the final block, stored
  stream.writeUInt16LE(content.length, 3);
  stream.writeUInt16LE(~content.length & 0xffff, 5);
  content.copy(stream, 7);
  stream.writeUInt32BE(adler32(content), 7 + content.length);
  return stream;
}

const STORE_BELOW = 8 << 10;

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (let index = 0; index < data.length; index += 1) {
    a = (a + data[index]!) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

// A pack entry's header: the type and the size, 4 bits in the first byte and 7 in each next, low bits first.
function objectHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

// Index version 2: fan-out table, sorted ids, CRC-32 of each entry, 31-bit offsets (a snapshot's pack stays far
// below 2 GiB: the in-process path takes at most a few MiB), the pack's checksum, then the index's own.
function packIndex(placed: ReadonlyArray<{ oid: Buffer; offset: number; crc: number }>, packSum: Buffer): Buffer {
  const count = placed.length;
  const data = Buffer.alloc(8 + 256 * 4 + count * (20 + 4 + 4) + 20 + 20);
  data.writeUInt32BE(0xff744f63, 0);
  data.writeUInt32BE(2, 4);
  let at = 8;
  let cursor = 0;
  for (let first = 0; first < 256; first += 1) {
    while (cursor < count && placed[cursor]!.oid[0]! <= first) cursor += 1;
    data.writeUInt32BE(cursor, at);
    at += 4;
  }
  for (const { oid } of placed) at += oid.copy(data, at);
  for (const { crc } of placed) at = data.writeUInt32BE(crc, at);
  for (const { offset } of placed) at = data.writeUInt32BE(offset, at);
  at += packSum.copy(data, at);
  const body = data.subarray(0, at);
  createHash("sha1").update(body).digest().copy(data, at);
  return data;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
