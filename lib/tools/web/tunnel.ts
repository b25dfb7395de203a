// Through a proxy, web_fetch tunnels to the address it checked, never to the name: the proxy gets
// `CONNECT <ip>:<port>`, so it cannot resolve the name again and land somewhere else (DNS
// rebinding). Inside the tunnel the request is the same as a direct one: TLS sends the URL's
// name for SNI and verifies the certificate against it, and the Host header carries the name.

import { connect as netConnect } from "node:net";
import type { Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { buildConnector, errors } from "undici";
import type { ResolvedAddress } from "./resolve.ts";
import { isIpLiteral, unbracket } from "./ssrf.ts";

export type TunnelSettings = {
  proxy: URL;
  /** The checked addresses of the destination, tried in order. */
  addresses: readonly ResolvedAddress[];
  /** Deadline for reaching the proxy, its answer and the TLS handshake. */
  connectTimeoutMs: number;
  /** The whole fetch's signal: a cancel or the overall deadline ends a tunnel being opened. */
  signal: AbortSignal;
  /** Extra trusted CA certificates (PEM); tests only. */
  ca?: string;
};

/** The longest CONNECT answer head read before giving up on the proxy. */
const MAX_ANSWER_BYTES = 16 * 1024;

/** An undici `connect` function that opens every connection through a tunnel to a checked address. */
export function tunnelConnector(settings: TunnelSettings): buildConnector.connector {
  const ca = settings.ca !== undefined ? { ca: settings.ca } : {};
  const secure = buildConnector({ timeout: settings.connectTimeoutMs, ...ca });
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === "https:" ? 443 : 80);
    const deadline = AbortSignal.any([settings.signal, AbortSignal.timeout(settings.connectTimeoutMs)]);
    openTunnel(settings, port, deadline).then(
      (socket) => {
        if (options.protocol !== "https:") return callback(null, socket);
        // `options.hostname` is the URL's name: undici's connector uses it for SNI and the identity check.
        secure({ ...options, httpSocket: socket }, callback);
      },
      (error: unknown) => {
        const reason = deadline.aborted && !settings.signal.aborted
          ? new errors.ConnectTimeoutError(`Connect Timeout Error (proxy ${settings.proxy.host})`)
          : error instanceof Error
          ? error
          : new Error(String(error));
        callback(reason, null);
      },
    );
  };
}

/** The CONNECT target for an address: `a.b.c.d:port` or `[v6]:port`. */
export function tunnelTarget(address: ResolvedAddress, port: number): string {
  return address.family === 6 ? `[${address.address}]:${port}` : `${address.address}:${port}`;
}

async function openTunnel(settings: TunnelSettings, port: number, signal: AbortSignal): Promise<Socket> {
  let last: unknown = new Error("no checked address to tunnel to");
  for (const address of settings.addresses) {
    try {
      return await connectThrough(settings, tunnelTarget(address, port), signal);
    } catch (error) {
      last = error;
      if (signal.aborted) break;
    }
  }
  throw last;
}

function proxyAuthorization(proxy: URL): string | undefined {
  if (proxy.username === "" && proxy.password === "") return undefined;
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
}

function connectThrough(settings: TunnelSettings, target: string, signal: AbortSignal): Promise<Socket> {
  const { proxy } = settings;
  const name = `proxy ${proxy.host}`;
  return new Promise<Socket>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const host = unbracket(proxy.hostname);
    const secureProxy = proxy.protocol === "https:";
    const port = Number(proxy.port) || (secureProxy ? 443 : 80);
    const socket: Socket = secureProxy
      ? tlsConnect({
        host,
        port,
        ...(isIpLiteral(host) ? {} : { servername: host }),
        ALPNProtocols: ["http/1.1"],
        ...(settings.ca !== undefined ? { ca: settings.ca } : {}),
      })
      : netConnect({ host, port });
    let head = Buffer.alloc(0);
    const cleanup = (): void => {
      signal.removeEventListener("abort", onAbort);
      socket.removeListener("readable", onReadable);
      socket.removeListener("error", onError);
      socket.removeListener("close", onClose);
    };
    const fail = (error: unknown): void => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onAbort = (): void => fail(signal.reason);
    const onError = (error: Error): void => fail(new Error(`${name}: ${error.message}`, { cause: error }));
    const onClose = (): void => fail(new Error(`${name} closed the connection before answering CONNECT ${target}`));
    const onReadable = (): void => {
      for (let chunk: Buffer | null = socket.read(); chunk !== null; chunk = socket.read()) {
        head = Buffer.concat([head, chunk]);
      }
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) {
        if (head.length > MAX_ANSWER_BYTES) {
          fail(new Error(`${name} sent an answer to CONNECT longer than ${MAX_ANSWER_BYTES} bytes`));
        }
        return;
      }
      const statusLine = head.subarray(0, head.indexOf("\r\n")).toString("latin1");
      const match = /^HTTP\/1\.[01] (\d{3})(?: ([^\r\n]*))?$/.exec(statusLine);
      if (match === null) return fail(new Error(`${name} answered CONNECT ${target} with an invalid status line`));
      const status = Number(match[1]);
      if (status < 200 || status > 299) {
        const reason = match[2] ? ` ${match[2].slice(0, 200)}` : "";
        return fail(new Error(`${name} refused CONNECT ${target}: HTTP ${status}${reason}`));
      }
      // Neither HTTP nor TLS lets the server speak first: bytes here did not come from the origin.
      if (head.length > end + 4) return fail(new Error(`${name} sent data after its answer to CONNECT ${target}`));
      cleanup();
      resolve(socket);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    socket.on("error", onError);
    socket.on("close", onClose);
    socket.once(secureProxy ? "secureConnect" : "connect", () => {
      const auth = proxyAuthorization(proxy);
      socket.write(
        `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${
          auth !== undefined ? `Proxy-Authorization: ${auth}\r\n` : ""
        }\r\n`,
      );
      socket.on("readable", onReadable);
    });
  });
}
