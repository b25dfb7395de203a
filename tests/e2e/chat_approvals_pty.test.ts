// `scv chat` in a real pseudo-terminal (tmux): an edit's approval shows its diff coloured and pages a long one,
// reveals hidden characters in a command, and /approvals keeps the conversation (issue 15).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { HAS_TMUX, useTmuxChat } from "../support/tmux_chat.ts";

const chat = useTmuxChat();
const { tmux, launch, scrollback, waitFor, shows, keys, typeText } = chat;

describe.skipIf(!HAS_TMUX)(
  `scv chat approvals in a terminal${HAS_TMUX ? "" : " (skipped: tmux is not installed)"}`,
  () => {
    it("shows an edit's diff coloured, pages a long one with v, and reveals a bidi override in a command", async () => {
      const lines = Array.from({ length: 60 }, (_, index) => `row ${index + 1}`);
      await writeFile(join(chat.sandbox.workspace, "long.txt"), `${lines.join("\n")}\n`);
      chat.provider.push(
        toolCallResponse([{
          call_id: "c1",
          name: "write",
          arguments: {
            path: "long.txt",
            mode: "replace",
            content: lines.map((line) => `${line} changed`).join("\n") + "\n",
          },
        }]),
        toolCallResponse([{ call_id: "c2", name: "bash", arguments: { command: "echo safe \u202e txt.exe 1>&2" } }]),
        textResponse(["finished"]),
      );
      await launch({}, { height: 40 });
      await shows("fake-model · ready");
      typeText("go");
      keys("Enter");
      // 3 header rows and 120 changed rows: the first 20 inline, the other 103 a page of 20 per `v`.
      let text = await shows("103 more diff lines: press v to show the next 20");
      expect(text).toContain("--- a/long.txt");
      expect(text).toContain("-row 1");
      expect(text).not.toContain("+row 1 changed");
      for (const remaining of [83, 63, 43]) {
        typeText("v");
        await waitFor(
          () => scrollback().includes(`… ${remaining} more diff lines: press v to show more`),
          `${remaining} more`,
        );
      }
      const all = tmux("capture-pane", "-p", "-e", "-S", "-");
      expect(all).toContain("\x1b[31m-row 1");
      expect(all).toContain("\x1b[32m+row 1 changed");
      expect(all).not.toContain("+row 20 changed");
      typeText("y");
      keys("Enter");
      // The server's detail escapes the override; the chat shows it as written, never the raw character.
      text = await shows("Run: echo safe \\u202e txt.exe 1>&2");
      expect(text).not.toContain("\u202e");
      typeText("n");
      keys("Enter");
      await shows("finished");
      expect(await readFile(join(chat.sandbox.workspace, "long.txt"), "utf8")).toContain("row 60 changed");
    });

    it("/approvals changes the policy without starting a new session", async () => {
      chat.provider.push(textResponse(["first answer"]), textResponse(["second answer"]));
      await launch();
      await shows("fake-model · ready");
      typeText("hello there");
      keys("Enter");
      await shows("first answer");
      typeText("/approvals always");
      keys("Enter");
      const text = await shows("switched to approvals always; the conversation continues");
      expect(text).not.toContain("starts fresh");
      typeText("again");
      keys("Enter");
      await shows("second answer");
      expect(JSON.stringify(chat.provider.requests[1]!.body.input)).toContain("hello there");
    });
  },
);
