// Process-wide (stdio) or listener-wide (WebSocket) request and cell limits (host spec §5.3).
import { SUPPORTED_CAPABILITIES } from "./protocol.ts";

export const MAX_IN_FLIGHT_REQUESTS = 256;
export const MAX_ACTIVE_CELLS = 128;
export const MAX_PENDING_DELEGATES = 1024;
export const LARGE_MAX_PENDING_DELEGATES = 4096;
/** Frames queued for a client that does not read before the connection fails. */
export const MAX_OUTGOING_FRAMES = 16_384;
/** Bytes queued for a client that does not read before the connection fails. */
export const MAX_OUTGOING_BYTES = 512 * 1024 * 1024;
/**
 * Cell output a connection lets wait in the host (undelivered items and frames the transport has
 * not taken) before its sandbox processes are no longer read; a single larger message may still
 * pass alone.
 */
export const MAX_BUFFERED_OUTPUT_BYTES = 256 * 1024 * 1024;

/** A counting semaphore without waiting: acquisition fails at once when exhausted. */
export class Permits {
  readonly max: number;
  #used = 0;

  constructor(max: number) {
    this.max = max;
  }

  get used(): number {
    return this.#used;
  }

  tryAcquire(): (() => void) | null {
    if (this.#used >= this.max) return null;
    this.#used++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#used--;
    };
  }
}

export interface HostLimits {
  /** Capabilities the host may grant (all supported ones unless narrowed for tests). */
  capabilities: ReadonlySet<string>;
  inFlight: Permits;
  activeCells: Permits;
  maxPendingDelegates: number;
  maxLargePendingDelegates: number;
  maxOutgoingFrames: number;
  maxOutgoingBytes: number;
  maxBufferedOutputBytes: number;
}

/** `SCV_HOST_CAPABILITIES`: a comma-separated subset of the supported capabilities (may be empty). */
function capabilitiesFromEnv(env: NodeJS.ProcessEnv): ReadonlySet<string> {
  const raw = env.SCV_HOST_CAPABILITIES;
  if (raw === undefined) return SUPPORTED_CAPABILITIES;
  const names = raw.split(",").map((name) => name.trim()).filter((name) => name !== "");
  for (const name of names) {
    if (!SUPPORTED_CAPABILITIES.has(name))
      throw new Error(`invalid SCV_HOST_CAPABILITIES: unsupported capability \`${name}\``);
  }
  return new Set(names);
}

function fromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`invalid ${name} \`${raw}\`: expected a non-negative integer`);
  return value;
}

/** Limits with test overrides from `SCV_HOST_MAX_*` environment variables. */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): HostLimits {
  return {
    capabilities: capabilitiesFromEnv(env),
    inFlight: new Permits(fromEnv(env, "SCV_HOST_MAX_IN_FLIGHT_REQUESTS", MAX_IN_FLIGHT_REQUESTS)),
    activeCells: new Permits(fromEnv(env, "SCV_HOST_MAX_ACTIVE_CELLS", MAX_ACTIVE_CELLS)),
    maxPendingDelegates: fromEnv(env, "SCV_HOST_MAX_PENDING_DELEGATES", MAX_PENDING_DELEGATES),
    maxLargePendingDelegates: fromEnv(env, "SCV_HOST_MAX_LARGE_PENDING_DELEGATES", LARGE_MAX_PENDING_DELEGATES),
    maxOutgoingFrames: fromEnv(env, "SCV_HOST_MAX_OUTGOING_FRAMES", MAX_OUTGOING_FRAMES),
    maxOutgoingBytes: fromEnv(env, "SCV_HOST_MAX_OUTGOING_BYTES", MAX_OUTGOING_BYTES),
    maxBufferedOutputBytes: fromEnv(env, "SCV_HOST_MAX_BUFFERED_OUTPUT_BYTES", MAX_BUFFERED_OUTPUT_BYTES),
  };
}
