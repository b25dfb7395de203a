// Resolve a destination once, judge every address, and pin connections to the checked ones
// (spec §10 "Pinning"): the socket's `lookup` only ever answers with those addresses, so a
// second, different DNS answer (rebinding) is never used.

import { promises as dns } from "node:dns";
import type { LookupAddress, LookupOptions } from "node:dns";
import { isIpLiteral, literalRefusal, noAddressMessage, resolvedRefusal, unbracket } from "./ssrf.ts";

export type ResolvedAddress = { address: string; family: 4 | 6 };

/** Every A and AAAA record of `hostname`. Injectable for tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Whether an address may be contacted. */
export type AddressPolicy = (ip: string) => boolean;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, order: "verbatim" });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

export type Destination = { ok: true; addresses: ResolvedAddress[] } | { ok: false; error: string };

/** Checks an IP literal, or resolves a name once and checks all of its addresses. */
export async function resolveDestination(
  hostname: string,
  resolver: Resolver,
  allowed: AddressPolicy,
): Promise<Destination> {
  if (isIpLiteral(hostname)) {
    const ip = unbracket(hostname);
    if (!allowed(ip)) return { ok: false, error: literalRefusal(ip) };
    return { ok: true, addresses: [{ address: ip, family: ip.includes(":") ? 6 : 4 }] };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolver(hostname);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOTFOUND" || code === "ENODATA") return { ok: false, error: noAddressMessage(hostname) };
    return {
      ok: false,
      error: `could not resolve ${hostname}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (addresses.length === 0) return { ok: false, error: noAddressMessage(hostname) };
  for (const { address } of addresses) {
    if (!allowed(address)) return { ok: false, error: resolvedRefusal(hostname, address) };
  }
  return { ok: true, addresses };
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `net.connect` lookup that answers only with `addresses`, whatever name it is asked for. */
export function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: LookupOptions | number | undefined, callback: LookupCallback): void => {
    const family = typeof options === "number" ? options : (options?.family ?? 0);
    const wanted = family === 4 || family === 6 || family === "IPv4" || family === "IPv6"
      ? addresses.filter((entry) => entry.family === (family === 4 || family === "IPv4" ? 4 : 6))
      : [...addresses];
    if (wanted.length === 0) {
      const error: NodeJS.ErrnoException = new Error("no checked address of the requested family");
      error.code = "ENOTFOUND";
      callback(error, "", 0);
      return;
    }
    if (typeof options === "object" && options.all === true) {
      callback(null, wanted.map((entry) => ({ address: entry.address, family: entry.family })));
    } else {
      callback(null, wanted[0]!.address, wanted[0]!.family);
    }
  };
}
