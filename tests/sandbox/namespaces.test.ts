// The namespace launcher on its own (lib/sandbox/namespaces.ts), with a program that reports what
// it sees: only the layout's binds under a read-only root, and no other process.
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isolationFor, libraryBinds, type NamespaceLayout, wrap } from "../../lib/sandbox/namespaces.ts";
import { HANG_MS } from "../support/wait.ts";

const node = realpathSync(process.execPath);
const layout: NamespaceLayout = { binds: [{ source: node, target: "/scv/node" }, ...libraryBinds(node)] };
const bwrap = isolationFor(layout).tool === "bwrap";

const PROBE = `
const fs = require("node:fs");
const seen = {};
try { seen.root = fs.readdirSync("/").sort() } catch (e) { seen.root = e.code }
try { fs.writeFileSync("/planted", "x"); seen.write = "written" } catch (e) { seen.write = e.code }
try { process.kill(-1, 0); seen.signal = "some process" } catch (e) { seen.signal = e.code }
try { fs.readFileSync("/etc/passwd"); seen.passwd = "read" } catch (e) { seen.passwd = e.code }
seen.env = Object.keys(process.env);
seen.pid = process.pid;
console.log(JSON.stringify(seen));
`;

function run(wrapped: { command: string; args: string[] }) {
  const result = spawnSync(wrapped.command, wrapped.args, { env: {}, encoding: "utf8", timeout: HANG_MS });
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe.skipIf("Deno" in globalThis || process.platform !== "linux")("namespaces", () => {
  it.skipIf(!bwrap)("with bwrap: an empty read-only root and its own PID namespace", () => {
    const wrapped = wrap(layout, (inside) => ({ command: inside("/scv/node"), args: ["-e", PROBE] }));
    expect(wrapped.isolation).toEqual({
      tool: "bwrap",
      emptyRoot: true,
      pidNamespace: true,
      networkNamespace: true,
      diesWithParent: true,
    });
    expect(wrapped.command).toBe("/usr/bin/bwrap");
    const seen = run(wrapped);
    // Only the top folders of the binds: the runtime under /scv, its libraries under their own paths.
    const tops = new Set(layout.binds.map((bind) => bind.target.split("/")[1]));
    expect(seen.root).toEqual([...tops].sort());
    expect(seen.write).toBe("EROFS");
    expect(seen.signal).toBe("ESRCH");
    expect(seen.passwd).toBe("ENOENT");
    // The program is the namespace's first process: no reaper of bwrap's sits between it and its launcher.
    expect(seen.pid).toBe(1);
  });

  it("without bwrap: the host's files, but still no other process where unshare works", () => {
    const wrapped = wrap(layout, (inside) => ({ command: inside("/scv/node"), args: ["-e", PROBE] }), {
      noBwrap: true,
    });
    expect(wrapped.isolation.emptyRoot).toBe(false);
    expect(wrapped.args).toContain(node);
    const seen = run(wrapped);
    expect(seen.passwd).toBe("read");
    if (wrapped.isolation.pidNamespace) expect(seen.signal).toBe("ESRCH");
  });

  it("names a path of the layout only", () => {
    expect(() => wrap(layout, (inside) => ({ command: inside("/elsewhere"), args: [] }), { noBwrap: true })).toThrow(
      "No bind has the target /elsewhere: name a path of the layout",
    );
  });
});
