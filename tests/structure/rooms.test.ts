// The rooms of lib/ and which may import which: the one table, shown in docs/architecture.md. An import against it
// fails here (static `import … from` and lazy `import()` alike), as does a room the table does not place or a
// table that goes round in a circle. Files directly in lib/ (version.ts, build_info.ts) belong to no room and any
// room may use them.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const LIB = join(ROOT, "lib");

/** Each room and the rooms it may import, lowest first. Keep docs/architecture.md's table the same. */
export const ROOMS: Record<string, readonly string[]> = {
  util: [],
  codec: [],
  sandbox: [],
  policy: ["util"],
  protocol: ["util"],
  config: ["policy", "util"],
  // Confining a command or an MCP server by the operating system, as policy decides (bwrap built by lib/sandbox's).
  confine: ["policy", "sandbox", "util"],
  provider: ["config", "protocol", "util"],
  pricing: ["protocol"],
  snapshots: ["util"],
  sessions: ["pricing", "provider", "util"],
  tools: ["confine", "config", "policy", "provider", "sandbox", "util"],
  // Project instructions (AGENTS.md), custom commands and hooks: what users bring, read by the engine.
  instructions: ["util"],
  commands: ["util"],
  hooks: ["config", "util"],
  agent: ["config", "protocol", "provider", "tools", "util"],
  server: [
    "agent",
    "codec",
    "commands",
    "config",
    "hooks",
    "instructions",
    "policy",
    "pricing",
    "protocol",
    "provider",
    "sessions",
    "snapshots",
    "tools",
    "util",
  ],
  host: ["codec", "sandbox", "util"],
  // How a client shows events: no I/O, no engine.
  render: ["protocol"],
  // The in-process engine: the one place a client meets the server.
  embed: ["codec", "policy", "protocol", "server", "util"],
  // The protocol client: the session controller and attachments.
  client: ["embed", "protocol", "util"],
  chat: ["client", "embed", "policy", "protocol", "render", "util"],
  acp: ["client", "config", "embed", "policy", "protocol", "provider", "render", "util"],
  cli: [
    "acp",
    "chat",
    "client",
    "config",
    "confine",
    "embed",
    "host",
    "protocol",
    "render",
    "sandbox",
    "server",
    "sessions",
    "tools",
    "util",
  ],
};

const IMPORT = /(?:^(?:import|export)\s[^;]*?\sfrom\s+|\bimport\()\s*"(\.[^"]+)"/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function roomOf(path: string): string | undefined {
  const parts = relative(LIB, path).split("/");
  return parts.length > 1 && !parts[0]!.startsWith("..") ? parts[0] : undefined;
}

describe("rooms and the direction of imports", () => {
  it("places every folder of lib/ in the table", () => {
    const rooms = readdirSync(LIB, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) =>
      entry.name
    );
    expect(rooms.filter((room) => !(room in ROOMS))).toEqual([]);
    expect(Object.keys(ROOMS).filter((room) => !rooms.includes(room))).toEqual([]);
  });

  it("has no import against the table", () => {
    const against: string[] = [];
    for (const file of sources(LIB)) {
      const from = roomOf(file);
      if (from === undefined) continue;
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        const to = roomOf(normalize(join(dirname(file), match[1]!)));
        if (to === undefined || to === from) continue;
        if (!ROOMS[from]!.includes(to)) against.push(`${relative(ROOT, file)} (${from}) imports ${to}`);
      }
    }
    expect(against).toEqual([]);
  });

  it("goes one way: no room reaches itself through the table", () => {
    const circles: string[] = [];
    const reaches = (room: string, target: string, seen: Set<string>): boolean =>
      ROOMS[room]!.some((next) =>
        next === target || (!seen.has(next) && (seen.add(next), reaches(next, target, seen)))
      );
    for (const room of Object.keys(ROOMS)) if (reaches(room, room, new Set())) circles.push(room);
    expect(circles).toEqual([]);
  });

  it("keeps lib/policy on the ground floor, and the server out of every client but through lib/embed", () => {
    expect(ROOMS.policy).toEqual(["util"]);
    for (const client of ["client", "chat", "acp", "render"]) expect(ROOMS[client]).not.toContain("server");
  });

  it("notices an import against the table", () => {
    const file = join(LIB, "policy", "decide.ts");
    const text = 'import { x } from "../server/index.ts";\nconst y = await import("../chat/index.ts");\n';
    const found = [...text.matchAll(IMPORT)].map((match) => roomOf(normalize(join(dirname(file), match[1]!))));
    expect(found).toEqual(["server", "chat"]);
    expect(found.filter((room) => !ROOMS.policy!.includes(room!))).toEqual(["server", "chat"]);
  });
});
