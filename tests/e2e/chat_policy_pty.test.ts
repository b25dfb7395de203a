// Issue 28 in `scv chat` in a real terminal (tmux): /approvals shows the engine's mode and rules with their
// origins, switches to plan mode (a write is refused, saying so), and `k` keeps the engine's rule in the user file.
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { HAS_TMUX, useTmuxChat } from "../support/tmux_chat.ts";

const chat = useTmuxChat();
const { launch, shows, keys, typeText } = chat;

describe.skipIf(!HAS_TMUX)(
  `scv chat and the engine's policy${HAS_TMUX ? "" : " (skipped: tmux is not installed)"}`,
  () => {
    it("/approvals lists the rules in force; /approvals plan refuses a write", async () => {
      const user = await chat.sandbox.writeUserConfig('[permissions]\ndeny = ["bash(rm:*)"]\n');
      chat.provider.push(
        toolCallResponse([{
          call_id: "w1",
          name: "write",
          arguments: { path: "x.txt", content: "x", mode: "create" },
        }]),
        textResponse(["planned"]),
      );
      await launch({}, { width: 160 });
      await shows("fake-model · ready");
      typeText("/approvals");
      keys("Enter");
      await shows(`deny bash(rm:*) (user file ${user})`);
      typeText("/approvals plan");
      keys("Enter");
      await shows("switched to approvals plan");
      typeText("write it");
      keys("Enter");
      await shows("planned");
      expect(existsSync(join(chat.sandbox.workspace, "x.txt"))).toBe(false);
      expect(chat.scrollback(true)).toContain("plan mode is on");
    });

    it("`k` keeps the rule the engine offers in the user file, and the next call runs unasked", async () => {
      chat.provider.push(
        toolCallResponse([{ call_id: "b1", name: "bash", arguments: { command: "touch one.txt" } }]),
        textResponse(["first done"]),
        toolCallResponse([{ call_id: "b2", name: "bash", arguments: { command: "touch one.txt" } }]),
        textResponse(["second done"]),
      );
      await launch({}, { width: 160 });
      await shows("fake-model · ready");
      typeText("make it");
      keys("Enter");
      await shows("[k]eep for good");
      expect(chat.screen()).toContain("always / keep allow: bash(touch one.txt)");
      typeText("k");
      keys("Enter");
      await shows("first done");
      expect(chat.scrollback(true)).toContain("approved (kept for good in the user config: bash(touch one.txt))");
      const user = join(chat.sandbox.home, "config.toml");
      expect(await readFile(user, "utf8")).toBe('[permissions]\nallow = ["bash(touch one.txt)"]\n');
      expect((await stat(user)).mode & 0o777).toBe(0o600);
      typeText("again");
      keys("Enter");
      await shows("second done");
      expect(chat.scrollback(true).match(/Approve bash/g)).toHaveLength(1);
    });
  },
);
