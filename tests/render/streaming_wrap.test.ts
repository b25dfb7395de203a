// Streaming text is word-wrapped while it streams: rows that the rest of the line cannot change are committed at
// once, and however the deltas cut the text (mid-word, mid-markup, mid-fence), what is committed in the end is
// exactly the whole message rendered at once: nothing lost, nothing twice.
import { describe, expect, it } from "vitest";
import type { ClientEvent } from "../../lib/protocol/index.ts";
import { renderMarkdown } from "../../lib/render/markdown.ts";
import { createStyle, displayWidth } from "../../lib/render/style.ts";
import { Transcript } from "../../lib/render/transcript.ts";

const plain = createStyle(false);
const color = createStyle(true);
const T = { request_id: "r", session_id: "s", turn_id: "t" };

function apply(transcript: Transcript, event: Record<string, unknown>): string[] {
  return transcript.apply({ ...T, ...event } as unknown as ClientEvent);
}

/** Streams `text` in the given pieces and returns what was committed, delta by delta, then at completion. */
function stream(pieces: string[], width = 30, style = plain) {
  const transcript = new Transcript(style, width);
  const perDelta = pieces.map((content) => apply(transcript, { type: "assistant.delta", content }));
  const last = apply(transcript, { type: "assistant.completed", content: pieces.join("") });
  return { rows: [...perDelta.flat(), ...last], perDelta, transcript };
}

// A small deterministic generator, so a failure can be replayed.
function pieces(text: string, seed: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
  const out: string[] = [];
  let index = 0;
  while (index < text.length) {
    const size = 1 + (next() % 9);
    out.push(text.slice(index, index + size));
    index += size;
  }
  return out;
}

const MESSAGE = [
  "Streaming text should wrap at word boundaries while it streams, not only after the turn has ended.",
  "- a list item with **bold words that go on** and `inline code` long enough to need two rows",
  "> a quoted remark that is also rather long and wraps",
  "```ts",
  'const message = "a code line that is much wider than the terminal row it sits in";',
  "```",
  "| col | other |",
  "|---|---:|",
  "| 日本語 | 42 |",
  "",
  "see [the docs](https://example.org/some/long/path) and _underlined words_ and ``double `tick` code`` then *it*",
  "and <https://x.example/y>, snake_case_name, a*b*c, 日本語のテキスト 👩‍💻 and **unclosed bold",
  "Last words, with a verylongunbreakablewordthatexceedsthewidthofthetermianl at the end.",
].join("\n");

describe("streaming word wrap", () => {
  it("commits the finished rows of a long line before the line ends, each within the width", () => {
    const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split(" ");
    const { perDelta } = stream(words.map((word) => `${word} `), 30);
    const early = perDelta.flat();
    expect(early.length).toBeGreaterThanOrEqual(2);
    for (const row of early) expect(displayWidth(row)).toBeLessThanOrEqual(30);
    // Rows end at word boundaries: every committed row is made of whole words.
    for (const row of early) for (const word of row.trim().split(" ")) expect(words).toContain(word);
  });

  it("shows the unfinished row rendered in the live region, never a word cut in two", () => {
    const transcript = new Transcript(plain, 20);
    apply(transcript, { type: "assistant.delta", content: "one two three four five si" });
    expect(transcript.streaming.rendered).toEqual(["five si"]);
    apply(transcript, { type: "assistant.delta", content: "x seven" });
    expect(transcript.streaming.rendered).toEqual(["five six seven"]);
  });

  for (const seed of [1, 2, 3, 7, 42, 1234]) {
    it(`loses and repeats nothing, however the deltas cut the text (seed ${seed})`, () => {
      for (const width of [24, 37]) {
        const expected = renderMarkdown(MESSAGE, plain, width);
        expect(stream(pieces(MESSAGE, seed), width).rows).toEqual(expected);
        expect(stream(pieces(MESSAGE, seed), width, color).rows).toEqual(renderMarkdown(MESSAGE, color, width));
      }
    });
  }

  it("loses nothing when every delta is a single character", () => {
    expect(stream([...MESSAGE], 28).rows).toEqual(renderMarkdown(MESSAGE, plain, 28));
  });

  it("loses nothing in a line long enough to be re-wrapped only now and then, and keeps its work near linear", () => {
    const words = Array.from({ length: 1500 }, (_, index) => (index % 7 === 0 ? `**w${index}**` : `w${index}`));
    const text = `${words.join(" ")}\nend`;
    const cut = Array.from({ length: Math.ceil(text.length / 7) }, (_, index) => text.slice(index * 7, index * 7 + 7));
    const { rows, perDelta, transcript } = stream(cut, 50);
    expect(rows).toEqual(renderMarkdown(text, plain, 50));
    // Rows were committed while the long line streamed, not only at its end.
    const lineEnd = cut.findIndex((piece) => piece.includes("\n"));
    expect(perDelta.slice(0, lineEnd).flat().length).toBeGreaterThan(100);
    expect(transcript.partial).toBe("");
  });

  it("keeps code fence lines whole: nothing of a code line is committed as prose", () => {
    const { perDelta } = stream(["```sh\necho one two three four five six seven", " eight\n```\n"], 24);
    expect(perDelta[0]).toEqual(["  ┌─ sh", "  │ echo one two three f"]);
    expect(perDelta[1]).toEqual(["  ┆ our five six seven e", "  ┆ ight", "  └─"]);
  });

  it("keeps the old width for the rest of a line whose first rows were committed, after a resize", () => {
    const transcript = new Transcript(plain, 20);
    const first = apply(transcript, { type: "assistant.delta", content: "one two three four five six seven" });
    transcript.setWidth(40);
    const rest = apply(transcript, { type: "assistant.delta", content: " eight nine ten\nnext" });
    const done = apply(transcript, { type: "assistant.completed", content: "" });
    const text = [...first, ...rest].join(" ").replace(/\s+/g, " ").trim();
    expect(text).toBe("one two three four five six seven eight nine ten");
    expect(done).toEqual(["next"]);
  });
});
