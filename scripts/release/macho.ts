// An ad-hoc code signature for 64-bit Mach-O executables, written from Linux: macOS on arm64 runs no
// unsigned code, and injecting the application invalidates Node's own signature. The signature is what
// `codesign -s -` makes: a SuperBlob holding a SHA-256 CodeDirectory of 4 KiB page hashes, an empty
// requirement set and an empty CMS wrapper, pointed at by LC_CODE_SIGNATURE at the end of __LINKEDIT.
// verifyMachOSignature checks the page hashes of any CodeDirectory (Apple's own included).
import { createHash } from "node:crypto";

const MH_MAGIC_64 = 0xfeedfacf;
const LC_SEGMENT_64 = 0x19;
const LC_CODE_SIGNATURE = 0x1d;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSMAGIC_REQUIREMENTS = 0xfade0c01;
const CSMAGIC_BLOBWRAPPER = 0xfade0b01;
const CSSLOT_CODEDIRECTORY = 0;
const CSSLOT_REQUIREMENTS = 2;
const CSSLOT_ALTERNATE_CODEDIRECTORIES = 0x1000;
const CSSLOT_SIGNATURESLOT = 0x10000;
const CS_ADHOC = 0x2;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const CS_HASHTYPE_SHA1 = 1;
const CS_HASHTYPE_SHA256 = 2;
const PAGE_SHIFT = 12;
const PAGE = 1 << PAGE_SHIFT;
const CODE_DIRECTORY_HEADER = 88; // version 0x20400, with the exec-segment fields
const MH_EXECUTE = 2;

interface Segment {
  commandOffset: number;
  name: string;
  fileoff: number;
  filesize: number;
  vmsize: number;
}

interface MachO {
  view: DataView;
  cputype: number;
  filetype: number;
  ncmds: number;
  sizeofcmds: number;
  segments: Segment[];
  /** Offset of LC_CODE_SIGNATURE's command, and its data. */
  signature?: { commandOffset: number; dataoff: number; datasize: number };
  /** Where the first section's data starts: load commands may not grow past it. */
  firstSectionOffset: number;
}

function parse(image: Uint8Array): MachO {
  const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
  if (image.length < 32 || view.getUint32(0, true) !== MH_MAGIC_64) throw new Error("not a 64-bit Mach-O image");
  const ncmds = view.getUint32(16, true);
  const sizeofcmds = view.getUint32(20, true);
  const segments: Segment[] = [];
  let signature: MachO["signature"];
  let firstSectionOffset = image.length;
  let offset = 32;
  for (let index = 0; index < ncmds; index++) {
    const cmd = view.getUint32(offset, true);
    const cmdsize = view.getUint32(offset + 4, true);
    if (cmdsize < 8 || offset + cmdsize > 32 + sizeofcmds) throw new Error("a load command runs past the header");
    if (cmd === LC_SEGMENT_64) {
      const name = new TextDecoder().decode(image.subarray(offset + 8, offset + 24)).replace(/\0+$/, "");
      segments.push({
        commandOffset: offset,
        name,
        vmsize: Number(view.getBigUint64(offset + 32, true)),
        fileoff: Number(view.getBigUint64(offset + 40, true)),
        filesize: Number(view.getBigUint64(offset + 48, true)),
      });
      const nsects = view.getUint32(offset + 64, true);
      for (let section = 0; section < nsects; section++) {
        const sectionOffset = view.getUint32(offset + 72 + section * 80 + 48, true);
        if (sectionOffset !== 0) firstSectionOffset = Math.min(firstSectionOffset, sectionOffset);
      }
    } else if (cmd === LC_CODE_SIGNATURE) {
      signature = {
        commandOffset: offset,
        dataoff: view.getUint32(offset + 8, true),
        datasize: view.getUint32(offset + 12, true),
      };
    }
    offset += cmdsize;
  }
  return {
    view,
    cputype: view.getUint32(4, true),
    filetype: view.getUint32(12, true),
    ncmds,
    sizeofcmds,
    segments,
    signature,
    firstSectionOffset,
  };
}

const align = (value: number, to: number) => Math.ceil(value / to) * to;

/** Signs `image` ad hoc under `identifier`; any earlier signature is replaced. Returns the new image. */
export function signMachOAdHoc(input: Uint8Array, identifier: string): Uint8Array {
  const macho = parse(input);
  const linkedit = macho.segments.find((segment) => segment.name === "__LINKEDIT");
  const text = macho.segments.find((segment) => segment.name === "__TEXT");
  if (linkedit === undefined || text === undefined) throw new Error("the image has no __TEXT or __LINKEDIT segment");
  // The signature goes where the old one was (it is the last thing in __LINKEDIT), else at the end.
  const codeLimit = align(macho.signature?.dataoff ?? linkedit.fileoff + linkedit.filesize, 16);
  if (codeLimit < linkedit.fileoff) throw new Error("the code signature does not lie in __LINKEDIT");

  const ident = new TextEncoder().encode(`${identifier}\0`);
  const nCodeSlots = Math.ceil(codeLimit / PAGE);
  const nSpecialSlots = CSSLOT_REQUIREMENTS;
  const hashOffset = CODE_DIRECTORY_HEADER + ident.length + nSpecialSlots * 32;
  const codeDirectoryLength = hashOffset + nCodeSlots * 32;
  const requirements = blob(CSMAGIC_REQUIREMENTS, new Uint8Array(4)); // count 0
  const wrapper = blob(CSMAGIC_BLOBWRAPPER, new Uint8Array(0));
  const superHeader = 12 + 3 * 8;
  const superLength = superHeader + codeDirectoryLength + requirements.length + wrapper.length;
  const datasize = align(superLength, 16);

  // The new file: everything before the signature, headers updated, then the signature.
  const image = new Uint8Array(codeLimit + datasize);
  image.set(input.subarray(0, Math.min(codeLimit, input.length)));
  const view = new DataView(image.buffer);
  let commandOffset = macho.signature?.commandOffset;
  if (commandOffset === undefined) {
    commandOffset = 32 + macho.sizeofcmds;
    if (commandOffset + 16 > macho.firstSectionOffset) throw new Error("no room for LC_CODE_SIGNATURE in the header");
    view.setUint32(commandOffset, LC_CODE_SIGNATURE, true);
    view.setUint32(commandOffset + 4, 16, true);
    view.setUint32(16, macho.ncmds + 1, true);
    view.setUint32(20, macho.sizeofcmds + 16, true);
  }
  view.setUint32(commandOffset + 8, codeLimit, true);
  view.setUint32(commandOffset + 12, datasize, true);
  const linkeditSize = codeLimit + datasize - linkedit.fileoff;
  const pageSize = macho.cputype === 0x0100000c ? 0x4000 : 0x1000; // arm64: 16 KiB VM pages
  view.setBigUint64(linkedit.commandOffset + 48, BigInt(linkeditSize), true);
  view.setBigUint64(linkedit.commandOffset + 32, BigInt(align(linkeditSize, pageSize)), true);

  // CodeDirectory (big-endian like every code-signing structure).
  const cd = new Uint8Array(codeDirectoryLength);
  const cdView = new DataView(cd.buffer);
  cdView.setUint32(0, CSMAGIC_CODEDIRECTORY);
  cdView.setUint32(4, codeDirectoryLength);
  cdView.setUint32(8, 0x20400);
  cdView.setUint32(12, CS_ADHOC);
  cdView.setUint32(16, hashOffset);
  cdView.setUint32(20, CODE_DIRECTORY_HEADER);
  cdView.setUint32(24, nSpecialSlots);
  cdView.setUint32(28, nCodeSlots);
  cdView.setUint32(32, codeLimit);
  cd[36] = 32; // hashSize
  cd[37] = CS_HASHTYPE_SHA256;
  cd[38] = 0; // platform
  cd[39] = PAGE_SHIFT;
  cdView.setBigUint64(64, BigInt(text.fileoff));
  cdView.setBigUint64(72, BigInt(text.filesize));
  cdView.setBigUint64(80, BigInt(macho.filetype === MH_EXECUTE ? CS_EXECSEG_MAIN_BINARY : 0));
  cd.set(ident, CODE_DIRECTORY_HEADER);
  // Special slot -2 (requirements) sits just before the code slots; slot -1 (Info.plist) stays zero.
  cd.set(sha256(requirements), hashOffset - CSSLOT_REQUIREMENTS * 32);
  for (let page = 0; page < nCodeSlots; page++) {
    const start = page * PAGE;
    cd.set(sha256(image.subarray(start, Math.min(start + PAGE, codeLimit))), hashOffset + page * 32);
  }

  const signature = new Uint8Array(datasize);
  const sigView = new DataView(signature.buffer);
  sigView.setUint32(0, CSMAGIC_EMBEDDED_SIGNATURE);
  sigView.setUint32(4, superLength);
  sigView.setUint32(8, 3);
  const entries: Array<[number, Uint8Array]> = [
    [CSSLOT_CODEDIRECTORY, cd],
    [CSSLOT_REQUIREMENTS, requirements],
    [CSSLOT_SIGNATURESLOT, wrapper],
  ];
  let at = superHeader;
  entries.forEach(([type, data], index) => {
    sigView.setUint32(12 + index * 8, type);
    sigView.setUint32(16 + index * 8, at);
    signature.set(data, at);
    at += data.length;
  });
  image.set(signature, codeLimit);
  return image;
}

function blob(magic: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, magic);
  view.setUint32(4, out.length);
  out.set(body, 8);
  return out;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest();

export interface SignatureCheck {
  codeDirectories: number;
  pagesChecked: number;
  identifier: string;
  adhoc: boolean;
}

/**
 * Verifies every CodeDirectory of the image's embedded signature: each code page's hash and the
 * requirements slot. Throws naming the first mismatch.
 */
export function verifyMachOSignature(image: Uint8Array): SignatureCheck {
  const macho = parse(image);
  if (macho.signature === undefined) throw new Error("the image is not signed (no LC_CODE_SIGNATURE)");
  const { dataoff, datasize } = macho.signature;
  if (dataoff + datasize > image.length) throw new Error("the signature runs past the end of the file");
  const sig = new DataView(image.buffer, image.byteOffset + dataoff, datasize);
  if (sig.getUint32(0) !== CSMAGIC_EMBEDDED_SIGNATURE)
    throw new Error("the signature is not an embedded-signature SuperBlob");
  const count = sig.getUint32(8);
  const slots = new Map<number, Uint8Array>();
  for (let index = 0; index < count; index++) {
    const type = sig.getUint32(12 + index * 8);
    const offset = sig.getUint32(16 + index * 8);
    const length = sig.getUint32(offset + 4);
    slots.set(type, image.subarray(dataoff + offset, dataoff + offset + length));
  }
  const directories = [...slots].filter(
    ([type]) =>
      type === CSSLOT_CODEDIRECTORY ||
      (type >= CSSLOT_ALTERNATE_CODEDIRECTORIES && type < CSSLOT_ALTERNATE_CODEDIRECTORIES + 5),
  );
  if (directories.length === 0) throw new Error("the signature holds no CodeDirectory");
  let pagesChecked = 0;
  let identifier = "";
  let adhoc = false;
  for (const [, cd] of directories) {
    const view = new DataView(cd.buffer, cd.byteOffset, cd.byteLength);
    if (view.getUint32(0) !== CSMAGIC_CODEDIRECTORY) throw new Error("a CodeDirectory slot holds another blob");
    const hashOffset = view.getUint32(16);
    const identOffset = view.getUint32(20);
    const nSpecialSlots = view.getUint32(24);
    const nCodeSlots = view.getUint32(28);
    const codeLimit = view.getUint32(32);
    const hashSize = cd[36]!;
    const hashType = cd[37]!;
    const pageSize = cd[39]! === 0 ? codeLimit : 1 << cd[39]!;
    const algorithm = hashType === CS_HASHTYPE_SHA256 ? "sha256" : hashType === CS_HASHTYPE_SHA1 ? "sha1" : undefined;
    if (algorithm === undefined) throw new Error(`unsupported code-signing hash type ${hashType}`);
    identifier = new TextDecoder().decode(cd.subarray(identOffset, cd.indexOf(0, identOffset)));
    adhoc = (view.getUint32(12) & CS_ADHOC) !== 0;
    const digest = (bytes: Uint8Array) => createHash(algorithm).update(bytes).digest().subarray(0, hashSize);
    if (nCodeSlots !== Math.ceil(codeLimit / pageSize))
      throw new Error("the CodeDirectory's slot count does not cover its code limit");
    for (let page = 0; page < nCodeSlots; page++) {
      const start = page * pageSize;
      const expected = cd.subarray(hashOffset + page * hashSize, hashOffset + (page + 1) * hashSize);
      if (!Buffer.from(expected).equals(digest(image.subarray(start, Math.min(start + pageSize, codeLimit))))) {
        throw new Error(
          `page ${page} (bytes ${start}–${Math.min(start + pageSize, codeLimit)}) does not match its hash`,
        );
      }
      pagesChecked++;
    }
    const requirements = slots.get(CSSLOT_REQUIREMENTS);
    if (requirements !== undefined && nSpecialSlots >= CSSLOT_REQUIREMENTS) {
      const expected = cd.subarray(
        hashOffset - CSSLOT_REQUIREMENTS * hashSize,
        hashOffset - (CSSLOT_REQUIREMENTS - 1) * hashSize,
      );
      if (!Buffer.from(expected).equals(digest(requirements)))
        throw new Error("the requirements blob does not match its hash");
    }
  }
  return { codeDirectories: directories.length, pagesChecked, identifier, adhoc };
}
