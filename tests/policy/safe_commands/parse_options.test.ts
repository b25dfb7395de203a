// The getopt-style splitter on its own: exact and abbreviated long options, `=value` and next-word values,
// bundles, `--`, and the two short-argument conventions (getopt's and tree's).
import { describe, expect, it } from "vitest";
import { optionTable } from "../../../lib/policy/safe_commands/option_table.ts";
import { parseArguments } from "../../../lib/policy/safe_commands/parse_options.ts";

const table = optionTable(`
  -n --lines NUM : number
  -q --quiet --silent
  --sort WORD
  --stable
  -o --output FILE ! writes
  --color [WHEN]
  -v
  -i [SUFFIX]
`);

function parse(...args: string[]) {
  const outcome = parseArguments("prog", table, args);
  if (!outcome.ok) return outcome.reason;
  return {
    options: outcome.parsed.options.map((option) => [option.spelled, option.value]),
    operands: outcome.parsed.operands,
    late: outcome.parsed.lateOptionWords,
  };
}

describe("long options", () => {
  it("takes an exact name, a unique prefix, and reports which option a prefix stands for", () => {
    expect(parse("--lines", "5", "f")).toEqual({ options: [["--lines", "5"]], operands: ["f"], late: [] });
    expect(parse("--li=5")).toMatchObject({ options: [["--li (--lines)", "5"]] });
    expect(parse("--o=x")).toMatchObject({ options: [["--o (--output)", "x"]] });
    expect(parse("--si")).toMatchObject({ options: [["--si (--silent)", undefined]] });
  });

  it("refuses an ambiguous prefix, an unknown name and an empty one", () => {
    expect(parse("--s")).toBe("uses prog --s, an ambiguous abbreviation (--silent, --sort, --stable)");
    expect(parse("--st")).toMatchObject({ options: [["--st (--stable)", undefined]] });
    expect(parse("--nope")).toBe("uses prog --nope, an option scv does not know as harmless");
    expect(parse("--=x")).toBe("uses prog --, an option with no name");
  });

  it("treats names of one option as one (no ambiguity between --quiet and --silent)", () => {
    const aliases = optionTable("-q --quiet --quieter");
    expect(parseArguments("p", aliases, ["--qu"]).ok).toBe(true);
  });

  it("takes a required value after = or as the next word, an optional one only after =", () => {
    expect(parse("--lines")).toBe("uses prog --lines without its argument");
    expect(parse("--color", "always")).toMatchObject({ options: [["--color", undefined]], operands: ["always"] });
    expect(parse("--color=always")).toMatchObject({ options: [["--color", "always"]] });
    expect(parse("--stable=yes")).toBe("uses prog --stable with a value it does not take");
  });

  it("needs exact names where the program takes no abbreviations", () => {
    const exact = optionTable("--oneline\n--output FILE ! writes", { abbreviations: false });
    expect(parseArguments("git log", exact, ["--onel"])).toEqual({
      ok: false,
      reason: "uses git log --onel, an option scv does not know as harmless",
    });
    expect(parseArguments("git log", exact, ["--oneline"]).ok).toBe(true);
  });
});

describe("short options", () => {
  it("judges every letter of a bundle, and a letter with an argument takes the rest or the next word", () => {
    expect(parse("-qv")).toMatchObject({ options: [["-q", undefined], ["-v", undefined]] });
    expect(parse("-qn5", "f")).toMatchObject({ options: [["-q", undefined], ["-n", "5"]], operands: ["f"] });
    expect(parse("-qn", "5", "f")).toMatchObject({ options: [["-q", undefined], ["-n", "5"]], operands: ["f"] });
    expect(parse("-nqv")).toMatchObject({ options: [["-n", "qv"]] });
    expect(parse("-vo")).toBe("uses prog -o without its argument");
    expect(parse("-qx")).toBe("uses prog -x, an option scv does not know as harmless");
  });

  it("gives an optional short argument only the rest of the word", () => {
    expect(parse("-i", "f")).toMatchObject({ options: [["-i", undefined]], operands: ["f"] });
    expect(parse("-i.bak", "f")).toMatchObject({ options: [["-i", ".bak"]], operands: ["f"] });
  });

  it("in tree's convention takes arguments from the next words, and -L's digits when attached", () => {
    const tree = optionTable("-a\n-P PATTERN : pattern\n-L LEVEL : number\n-o FILE ! writes", {
      shortArgument: "next-word",
      attachedDigits: "L",
      abbreviations: false,
    });
    const outcome = parseArguments("tree", tree, ["-Pa", "x", "y", "-L3a", "-La", "2"]);
    expect(outcome.ok && outcome.parsed.options.map((option) => [option.spelled, option.value])).toEqual([
      ["-P", "x"],
      ["-a", undefined],
      ["-L", "3"],
      ["-a", undefined],
      ["-L", "2"],
      ["-a", undefined],
    ]);
    expect(outcome.ok && outcome.parsed.operands).toEqual(["y"]);
  });
});

describe("operands", () => {
  it("ends options at --, keeps - as an operand, and records option words after an operand", () => {
    expect(parse("-q", "--", "-n", "-")).toMatchObject({ options: [["-q", undefined]], operands: ["-n", "-"] });
    expect(parse("f", "-n", "3", "--quiet")).toEqual({
      options: [["-n", "3"], ["--quiet", undefined]],
      operands: ["f"],
      late: ["-n", "3", "--quiet"],
    });
  });

  it("reads -5 as a count where the table says so, and as letters otherwise", () => {
    const counts = optionTable("-p", { numericWords: true });
    expect(parseArguments("git log", counts, ["-5", "-p"]).ok).toBe(true);
    expect(parse("-5")).toBe("uses prog -5, an option scv does not know as harmless");
  });
});

describe("option tables", () => {
  it("refuse a line they cannot read", () => {
    expect(() => optionTable("-n lines")).toThrow(/unknown token "lines"/);
    expect(() => optionTable("NUM")).toThrow(/names no option/);
    expect(() => optionTable("-n N : size")).toThrow(/unknown kind/);
  });
});
