// The snapshot store's index in git's own file format (version 2), read and written in this process: a snapshot
// with a few changes then costs one git process (`ls-files`, which finds them from the stat data here) instead of
// three that each load the whole index (git-scm.com/docs/index-format). Only what git would write for this store is
// accepted: version 2, stage 0, no extended flags, no extension git may not drop; anything else is
// UnsupportedIndexError and the store lets git do the work. Optional extensions (the cache tree) are dropped on
// write, as git allows. Paths are kept as latin1 strings of their bytes: byte-exact, and sorting them sorts as git.
import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";

export type IndexEntry = {
  /** The path's bytes, one latin1 character each. */
  name: string;
  ctimeSec: number;
  ctimeNsec: number;
  mtimeSec: number;
  mtimeNsec: number;
  dev: number;
  ino: number;
  /** git's mode: 0o100644, 0o100755 or 0o120000 here. */
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** The blob's SHA-1, 20 bytes. */
  oid: Buffer;
};

export class UnsupportedIndexError extends Error {
  override name = "UnsupportedIndexError";
}

const SIGNATURE = 0x44495243; // "DIRC"
const HEADER_BYTES = 12;
const FIXED_ENTRY_BYTES = 62;
const OID_BYTES = 20;
const NAME_MASK = 0xfff;
const EXTENDED_FLAG = 0x4000;
const STAGE_MASK = 0x3000;

/** The entries of an index file's bytes, in the file's (git's) order. */
export function parseIndex(data: Buffer): IndexEntry[] {
  if (data.length < HEADER_BYTES + OID_BYTES || data.readUInt32BE(0) !== SIGNATURE) {
    throw new UnsupportedIndexError("not a git index");
  }
  const version = data.readUInt32BE(4);
  if (version !== 2) throw new UnsupportedIndexError(`index version ${version}`);
  const end = data.length - OID_BYTES;
  const stored = data.subarray(end);
  if (!stored.every((byte) => byte === 0) && !checksum(data.subarray(0, end)).equals(stored)) {
    throw new UnsupportedIndexError("index checksum mismatch");
  }
  const count = data.readUInt32BE(8);
  const entries: IndexEntry[] = new Array(count);
  let offset = HEADER_BYTES;
  for (let index = 0; index < count; index += 1) {
    if (offset + FIXED_ENTRY_BYTES > end) throw new UnsupportedIndexError("index entry past the end");
    const flags = data.readUInt16BE(offset + 60);
    if ((flags & (EXTENDED_FLAG | STAGE_MASK)) !== 0) throw new UnsupportedIndexError("extended or staged entry");
    const nameStart = offset + FIXED_ENTRY_BYTES;
    let nameLength = flags & NAME_MASK;
    if (nameLength === NAME_MASK) nameLength = data.indexOf(0, nameStart) - nameStart;
    if (nameLength < 0 || nameStart + nameLength > end) throw new UnsupportedIndexError("index entry name");
    entries[index] = {
      name: data.toString("latin1", nameStart, nameStart + nameLength),
      ctimeSec: data.readUInt32BE(offset),
      ctimeNsec: data.readUInt32BE(offset + 4),
      mtimeSec: data.readUInt32BE(offset + 8),
      mtimeNsec: data.readUInt32BE(offset + 12),
      dev: data.readUInt32BE(offset + 16),
      ino: data.readUInt32BE(offset + 20),
      mode: data.readUInt32BE(offset + 24),
      uid: data.readUInt32BE(offset + 28),
      gid: data.readUInt32BE(offset + 32),
      size: data.readUInt32BE(offset + 36),
      oid: Buffer.from(data.subarray(offset + 40, offset + 40 + OID_BYTES)),
    };
    offset += entryBytes(nameLength);
  }
  // Extensions: a signature starting with A–Z is optional (git may drop it); any other changes what entries mean.
  while (offset + 8 <= end) {
    const first = data[offset]!;
    if (first < 0x41 || first > 0x5a) {
      throw new UnsupportedIndexError(`index extension ${data.toString("latin1", offset, offset + 4)}`);
    }
    offset += 8 + data.readUInt32BE(offset + 4);
  }
  if (offset !== end) throw new UnsupportedIndexError("index extensions do not end at the checksum");
  return entries;
}

/**
 * An index file of `entries` (sorted, no duplicates, no path both a file and a folder). An entry whose file was
 * modified or changed (mtime or ctime) less than `racyMarginSeconds` before `nowSeconds` is written with size 0: git
 * then compares its content on every look instead of trusting stat data that a second change within the same
 * second would leave as it is. git itself smudges such "racily clean" entries by mtime alone, so a file whose mtime
 * was set back (`touch -d`, `cp -p`, an archive) and then rewritten at the same size within a second looks
 * unchanged to it; the ctime of both writes is recent, and so counts here.
 */
export function serializeIndex(entries: readonly IndexEntry[], nowSeconds: number, racyMarginSeconds = 2): IndexFile {
  let total = HEADER_BYTES + OID_BYTES;
  for (const entry of entries) total += entryBytes(entry.name.length);
  const data = Buffer.alloc(total);
  data.writeUInt32BE(SIGNATURE, 0);
  data.writeUInt32BE(2, 4);
  data.writeUInt32BE(entries.length, 8);
  const offsets: number[] = new Array(entries.length);
  const smudged: number[] = [];
  let offset = HEADER_BYTES;
  entries.forEach((entry, position) => {
    offsets[position] = offset;
    if (writeEntry(data, offset, entry, nowSeconds, racyMarginSeconds)) smudged.push(position);
    data.write(entry.name, offset + FIXED_ENTRY_BYTES, "latin1");
    offset += entryBytes(entry.name.length);
  });
  checksum(data.subarray(0, offset)).copy(data, offset);
  return { data, offsets, smudged };
}

/**
 * The index file of `entries`, made from `previous`, the file of entries with the same names in the same order, by
 * writing again only the entries at `changed` positions and those `previous` wrote with size 0 (which may be old
 * enough now to get their size back): work for the changes, not for every file of the workspace.
 */
export function patchIndex(
  previous: IndexFile,
  entries: readonly IndexEntry[],
  changed: Iterable<number>,
  nowSeconds: number,
  racyMarginSeconds = 2,
): IndexFile {
  const data = Buffer.from(previous.data);
  const positions = new Set([...changed, ...previous.smudged]);
  const smudged: number[] = [];
  for (const position of positions) {
    if (writeEntry(data, previous.offsets[position]!, entries[position]!, nowSeconds, racyMarginSeconds)) {
      smudged.push(position);
    }
  }
  const end = data.length - OID_BYTES;
  checksum(data.subarray(0, end)).copy(data, end);
  return { data, offsets: previous.offsets, smudged };
}

/** An index file's bytes, where each entry starts in them, and the entries written with size 0. */
export type IndexFile = { data: Buffer; offsets: readonly number[]; smudged: readonly number[] };

/** Writes an entry's fixed part (its name is written apart); true when it was written racily clean (size 0). */
function writeEntry(data: Buffer, offset: number, entry: IndexEntry, nowSeconds: number, margin: number): boolean {
  const racy = Math.max(entry.mtimeSec, entry.ctimeSec) + margin > nowSeconds;
  data.writeUInt32BE(entry.ctimeSec, offset);
  data.writeUInt32BE(entry.ctimeNsec, offset + 4);
  data.writeUInt32BE(entry.mtimeSec, offset + 8);
  data.writeUInt32BE(entry.mtimeNsec, offset + 12);
  data.writeUInt32BE(entry.dev, offset + 16);
  data.writeUInt32BE(entry.ino, offset + 20);
  data.writeUInt32BE(entry.mode, offset + 24);
  data.writeUInt32BE(entry.uid, offset + 28);
  data.writeUInt32BE(entry.gid, offset + 32);
  data.writeUInt32BE(racy ? 0 : entry.size, offset + 36);
  entry.oid.copy(data, offset + 40);
  data.writeUInt16BE(Math.min(entry.name.length, NAME_MASK), offset + 60);
  return racy;
}

/** An entry for a file as `stats` (taken before its content was read) saw it. */
export function entryFromStats(name: string, stats: BigIntStats, mode: number, size: number, oid: Buffer): IndexEntry {
  return {
    name,
    ctimeSec: uint32(stats.ctimeNs / NS_PER_SECOND),
    ctimeNsec: Number(stats.ctimeNs % NS_PER_SECOND),
    mtimeSec: uint32(stats.mtimeNs / NS_PER_SECOND),
    mtimeNsec: Number(stats.mtimeNs % NS_PER_SECOND),
    dev: uint32(stats.dev),
    ino: uint32(stats.ino),
    mode,
    uid: uint32(stats.uid),
    gid: uint32(stats.gid),
    size: uint32(BigInt(size)),
    oid,
  };
}

const NS_PER_SECOND = 1_000_000_000n;

function uint32(value: bigint): number {
  return Number(BigInt.asUintN(32, value));
}

// 62 fixed bytes and the name, padded with 1 to 8 NULs to a multiple of 8.
function entryBytes(nameLength: number): number {
  return Math.floor((FIXED_ENTRY_BYTES + nameLength + 8) / 8) * 8;
}

function checksum(data: Buffer): Buffer {
  return createHash("sha1").update(data).digest();
}
