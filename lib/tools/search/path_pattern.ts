// The matcher behind glob patterns and .gitignore rules: a pattern (parsed by glob_pattern.ts or gitignore.ts into
// the nodes below) becomes a small automaton, run as a lazily built DFA over the path's UTF-16 code units. No
// backtracking: `*a*a*a*a*a*a*a*a*b` or `**/**/**/**/x` cost at most (path length × pattern size) per path, and
// usually one table look-up per character, because the DFA states met so far are kept (up to a bound).

/** One element of a path pattern. Every element but `any` and `folders` stays within one folder (never `/`). */
export type PatternNode =
  | { kind: "literal"; code: number }
  /** `?`: one code unit other than `/`. */
  | { kind: "one" }
  /** `*`: any run of code units without `/`. */
  | { kind: "star" }
  /** Any run of code units, `/` included (`x/**` at the end of a pattern). */
  | { kind: "any" }
  /** `**` then `/` (at a folder's start): nothing, or any run that ends in `/` (zero or more whole folders). */
  | { kind: "folders" }
  /** `[...]`: one code unit in (or, negated, not in) the ranges `[low, high, low, high, …]`, never `/`. */
  | { kind: "class"; ranges: number[]; negated: boolean }
  /** `{a,b}`: one of the sequences. */
  | { kind: "choice"; options: PatternNode[][] };

const SLASH = 0x2f;

// The automaton's instructions (Thompson's construction): consuming ones, then the ε-moves and the end.
const CHAR = 0;
const NOT_SLASH = 1;
const ANY = 2;
const CLASS = 3;
const SPLIT = 4;
const JUMP = 5;
const MATCH = 6;

type Split = { op: typeof SPLIT; first: number; second: number };
type Jump = { op: typeof JUMP; to: number };
type Instruction =
  | { op: typeof CHAR; code: number }
  | { op: typeof NOT_SLASH | typeof ANY | typeof MATCH }
  | { op: typeof CLASS; ranges: number[]; negated: boolean }
  | Split
  | Jump;

type DfaState = {
  /** The program counters this state stands for, sorted; empty for the dead state. */
  pcs: number[];
  accepting: boolean;
  /** Next state ids for ASCII code units (-1: not computed yet). */
  ascii: Int32Array;
  other: Map<number, number>;
};

/** Past this many DFA states the cache is dropped and rebuilt as needed (memory stays bounded). */
const MAX_DFA_STATES = 2000;

/** A compiled pattern that matches whole paths (anchored at both ends). */
export class PathMatcher {
  readonly #program: Instruction[];
  #states: DfaState[] = [];
  #ids = new Map<string, number>();
  #start = -1;
  /** Scratch for the ε-closure: the generation each pc was last added in. */
  readonly #seen: Int32Array;
  #generation = 0;

  constructor(nodes: readonly PatternNode[]) {
    const program: Instruction[] = [];
    emit(program, nodes);
    program.push({ op: MATCH });
    this.#program = program;
    this.#seen = new Int32Array(program.length);
  }

  /** True when the whole of `path` matches. */
  test(path: string): boolean {
    if (this.#start < 0) this.#start = this.#intern(this.#closure([0]));
    let state = this.#states[this.#start]!;
    for (let index = 0; index < path.length; index += 1) {
      if (state.pcs.length === 0) return false;
      const code = path.charCodeAt(index);
      let next = code < 128 ? state.ascii[code]! : (state.other.get(code) ?? -1);
      if (next < 0) next = this.#step(state, code);
      state = this.#states[next]!;
    }
    return state.accepting;
  }

  /** The state after `state` reads `code`, computed and remembered. */
  #step(state: DfaState, code: number): number {
    const moved: number[] = [];
    for (const pc of state.pcs) {
      const instruction = this.#program[pc]!;
      if (consumes(instruction, code)) moved.push(pc + 1);
    }
    const pcs = this.#closure(moved);
    if (this.#states.length >= MAX_DFA_STATES) {
      // `state` is dropped with the rest: it is only used by the caller's loop, which moves on to the result.
      this.#states = [];
      this.#ids.clear();
      this.#start = -1;
      return this.#intern(pcs);
    }
    const id = this.#intern(pcs);
    if (code < 128) state.ascii[code] = id;
    else state.other.set(code, id);
    return id;
  }

  /** The sorted set of consuming (or Match) instructions reachable from `pcs` without reading anything. */
  #closure(pcs: readonly number[]): number[] {
    this.#generation += 1;
    const generation = this.#generation;
    const seen = this.#seen;
    const out: number[] = [];
    const stack = [...pcs].reverse();
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (seen[pc] === generation) continue;
      seen[pc] = generation;
      const instruction = this.#program[pc]!;
      if (instruction.op === SPLIT) {
        stack.push(instruction.second, instruction.first);
      } else if (instruction.op === JUMP) {
        stack.push(instruction.to);
      } else {
        out.push(pc);
      }
    }
    return out.sort((a, b) => a - b);
  }

  #intern(pcs: number[]): number {
    const key = pcs.join(",");
    const known = this.#ids.get(key);
    if (known !== undefined) return known;
    const id = this.#states.length;
    const accepting = pcs.some((pc) => this.#program[pc]!.op === MATCH);
    this.#states.push({ pcs, accepting, ascii: new Int32Array(128).fill(-1), other: new Map() });
    this.#ids.set(key, id);
    return id;
  }
}

function consumes(instruction: Instruction, code: number): boolean {
  switch (instruction.op) {
    case CHAR:
      return instruction.code === code;
    case NOT_SLASH:
      return code !== SLASH;
    case ANY:
      return true;
    case CLASS:
      return code !== SLASH && inRanges(instruction.ranges, code) !== instruction.negated;
    default:
      return false;
  }
}

function inRanges(ranges: readonly number[], code: number): boolean {
  for (let index = 0; index < ranges.length; index += 2) {
    if (code >= ranges[index]! && code <= ranges[index + 1]!) return true;
  }
  return false;
}

/** Appends the instructions of `nodes` (a sequence) to `program`. */
function emit(program: Instruction[], nodes: readonly PatternNode[]): void {
  for (const node of nodes) {
    switch (node.kind) {
      case "literal":
        program.push({ op: CHAR, code: node.code });
        break;
      case "one":
        program.push({ op: NOT_SLASH });
        break;
      case "class":
        program.push({ op: CLASS, ranges: node.ranges, negated: node.negated });
        break;
      case "star":
      case "any":
        emitLoop(program, node.kind === "star" ? NOT_SLASH : ANY);
        break;
      case "folders": {
        // (.*/)? : skip, or any run then `/`.
        const split: Split = { op: SPLIT, first: program.length + 1, second: -1 };
        program.push(split);
        emitLoop(program, ANY);
        program.push({ op: CHAR, code: SLASH });
        split.second = program.length;
        break;
      }
      case "choice": {
        // SPLIT to each option but the last; every option but the last jumps past the others.
        const jumps: Jump[] = [];
        for (const option of node.options.slice(0, -1)) {
          const split: Split = { op: SPLIT, first: program.length + 1, second: -1 };
          program.push(split);
          emit(program, option);
          const jump: Jump = { op: JUMP, to: -1 };
          program.push(jump);
          jumps.push(jump);
          split.second = program.length;
        }
        emit(program, node.options[node.options.length - 1] ?? []);
        for (const jump of jumps) jump.to = program.length;
        break;
      }
    }
  }
}

/** `x*` for one consuming instruction x. */
function emitLoop(program: Instruction[], op: typeof NOT_SLASH | typeof ANY): void {
  const top = program.length;
  program.push({ op: SPLIT, first: top + 1, second: top + 3 });
  program.push({ op });
  program.push({ op: JUMP, to: top });
}

/**
 * The ranges of a bracket expression's body, read as JavaScript reads a character class (the patterns' meaning
 * before this matcher): every code unit stands for itself, and `x-y` between two of them is a range; `-` first,
 * last or right after a range is itself. Undefined for a range that runs backwards (`z-a`).
 */
export function classRanges(body: string): number[] | undefined {
  const ranges: number[] = [];
  let index = 0;
  while (index < body.length) {
    const low = body.charCodeAt(index);
    if (body[index + 1] === "-" && index + 2 < body.length) {
      const high = body.charCodeAt(index + 2);
      if (high < low) return undefined;
      ranges.push(low, high);
      index += 3;
    } else {
      ranges.push(low, low);
      index += 1;
    }
  }
  return ranges;
}

/** The nodes of a literal string. */
export function literalNodes(text: string): PatternNode[] {
  return Array.from({ length: text.length }, (_, index) => ({ kind: "literal", code: text.charCodeAt(index) }));
}
