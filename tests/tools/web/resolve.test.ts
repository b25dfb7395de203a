import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { pinnedLookup, resolveDestination } from "../../../lib/tools/web/resolve.ts";
import type { ResolvedAddress, Resolver } from "../../../lib/tools/web/resolve.ts";
import { isPublicAddress } from "../../../lib/tools/web/ssrf.ts";

const fixed = (answers: ResolvedAddress[]): Resolver => async () => answers;

describe("resolveDestination", () => {
  it("checks literals without resolving", async () => {
    const never: Resolver = async () => {
      throw new Error("resolver must not be called");
    };
    expect(await resolveDestination("[2606:4700::1111]", never, isPublicAddress)).toEqual({
      ok: true,
      addresses: [{ address: "2606:4700::1111", family: 6 }],
    });
    expect(await resolveDestination("10.0.0.1", never, isPublicAddress)).toEqual({
      ok: false,
      error: "10.0.0.1 is a loopback, private, or otherwise non-public address",
    });
  });

  it("keeps every address of a public name, in order", async () => {
    const answers: ResolvedAddress[] = [{ address: "1.1.1.1", family: 4 }, { address: "2606:4700::1111", family: 6 }];
    expect(await resolveDestination("one.test", fixed(answers), isPublicAddress)).toEqual({
      ok: true,
      addresses: answers,
    });
  });

  it("refuses when any address is non-public, naming it", async () => {
    const answers: ResolvedAddress[] = [{ address: "1.1.1.1", family: 4 }, { address: "fd00::5", family: 6 }];
    expect(await resolveDestination("two.test", fixed(answers), isPublicAddress)).toEqual({
      ok: false,
      error: "two.test resolves to fd00::5, a loopback, private, or otherwise non-public address",
    });
  });

  it("maps resolver failures", async () => {
    const notFound: Resolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND x.test"), { code: "ENOTFOUND" });
    };
    expect(await resolveDestination("x.test", notFound, isPublicAddress)).toEqual({
      ok: false,
      error: "x.test did not resolve to any address",
    });
    const broken: Resolver = async () => {
      throw Object.assign(new Error("getaddrinfo EAI_AGAIN y.test"), { code: "EAI_AGAIN" });
    };
    expect(await resolveDestination("y.test", broken, isPublicAddress)).toEqual({
      ok: false,
      error: "could not resolve y.test: getaddrinfo EAI_AGAIN y.test",
    });
  });
});

describe("pinnedLookup", () => {
  const addresses: ResolvedAddress[] = [{ address: "1.1.1.1", family: 4 }, { address: "2606:4700::1111", family: 6 }];
  const lookup = pinnedLookup(addresses);

  function ask(
    options: Parameters<typeof lookup>[1],
  ): Promise<{ error: unknown; address: string | LookupAddress[]; family?: number }> {
    return new Promise((resolve) =>
      lookup("anything.else", options, (error, address, family) => resolve({ error, address, family }))
    );
  }

  it("answers every checked address for all:true, whatever the name", async () => {
    expect(await ask({ all: true })).toEqual({ error: null, address: addresses, family: undefined });
  });

  it("answers the first address of the wanted family otherwise", async () => {
    expect(await ask({})).toEqual({ error: null, address: "1.1.1.1", family: 4 });
    expect(await ask({ family: 6 })).toEqual({ error: null, address: "2606:4700::1111", family: 6 });
    expect(await ask(4)).toEqual({ error: null, address: "1.1.1.1", family: 4 });
  });

  it("fails rather than guessing when no checked address has the family", async () => {
    const v4only = pinnedLookup([{ address: "1.1.1.1", family: 4 }]);
    const result = await new Promise<{ error: NodeJS.ErrnoException | null }>((resolve) =>
      v4only("x", { family: 6 }, (error) => resolve({ error }))
    );
    expect(result.error?.code).toBe("ENOTFOUND");
  });
});
