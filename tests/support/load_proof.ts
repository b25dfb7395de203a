// Finds what makes a test fail on a busy machine rather than on a defect (issue 27.7): a `retry` option, an upper
// bound on elapsed time (`expect(Date.now() - started).toBeLessThan(…)` and its spellings), and a deadline shorter
// than the hang deadline (a test's or hook's timeout, a `timeout` option). Read from the syntax tree of each file, so
// that strings (a cell's source, a shell command) and comments never count.
import ts from "typescript";
import { HANG_MS } from "./wait.ts";

export type Violation = {
  file: string;
  line: number;
  rule: "retry" | "elapsed upper bound" | "deadline below HANG_MS";
  text: string;
};

const CLOCK_CALLS = new Set(["Date.now", "performance.now", "process.hrtime", "process.hrtime.bigint"]);
/** Names that say a value is a duration even when the clock reading is out of sight (a field, a parameter). */
const DURATION_NAME = /elapsed|duration/i;
const UPPER = new Set(["toBeLessThan", "toBeLessThanOrEqual"]);
const LOWER = new Set(["toBeGreaterThan", "toBeGreaterThanOrEqual"]);
/** Vitest's functions whose last argument may be a timeout. */
const TIMED = new Set(["it", "test", "describe", "suite", "beforeAll", "afterAll", "beforeEach", "afterEach"]);

/** The violations in each of `files` (path → text). */
export function findViolations(files: Map<string, string>): Violation[] {
  const options: ts.CompilerOptions = { noLib: true, noResolve: true, target: ts.ScriptTarget.Latest };
  const host = ts.createCompilerHost(options);
  host.getSourceFile = (name, target) => {
    const text = files.get(name);
    return text === undefined ? undefined : ts.createSourceFile(name, text, target, true, ts.ScriptKind.TS);
  };
  host.fileExists = (name) => files.has(name);
  host.readFile = (name) => files.get(name);
  const program = ts.createProgram([...files.keys()], options, host);
  const checker = program.getTypeChecker();
  return [...files.keys()].flatMap((file) => fileViolations(program.getSourceFile(file)!, checker));
}

function fileViolations(source: ts.SourceFile, checker: ts.TypeChecker): Violation[] {
  const file = source.fileName;
  const clockSymbols = clockDerivedSymbols(source, checker);
  const readsClock = (node: ts.Node): boolean => {
    let found = false;
    const visit = (child: ts.Node): void => {
      if (found) return;
      if (ts.isCallExpression(child) && CLOCK_CALLS.has(child.expression.getText(source))) found = true;
      else if (
        ts.isIdentifier(child) && (isClockSymbol(child, checker, clockSymbols) || DURATION_NAME.test(child.text))
      )
        found = true;
      // `exit.ms`: a duration a helper measured (frame_client's exit).
      else if (ts.isPropertyAccessExpression(child) && child.name.text === "ms") found = true;
      else ts.forEachChild(child, visit);
    };
    visit(node);
    return found;
  };

  const violations: Violation[] = [];
  const report = (node: ts.Node, rule: Violation["rule"]): void => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    violations.push({ file, line: line + 1, rule, text: node.getText(source).split("\n")[0]!.slice(0, 160) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && propertyName(node.name) === "retry") report(node, "retry");
    if (
      ts.isPropertyAssignment(node) && propertyName(node.name) === "timeout" && isShortDeadline(node.initializer)
    ) report(node, "deadline below HANG_MS");
    // `const deadline = Date.now() + 8000`: a polling loop's own deadline.
    if (
      ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && /deadline/i.test(node.name.text) &&
      node.initializer !== undefined && ts.isBinaryExpression(node.initializer) &&
      node.initializer.operatorToken.kind === ts.SyntaxKind.PlusToken &&
      [node.initializer.left, node.initializer.right].some(isShortDeadline)
    ) report(node, "deadline below HANG_MS");
    if (ts.isCallExpression(node) && TIMED.has(rootName(node.expression) ?? "")) {
      const last = node.arguments.at(-1);
      if (node.arguments.length > 1 && last !== undefined && isShortDeadline(last))
        report(last, "deadline below HANG_MS");
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const bound = upperBoundOf(node.expression);
      if (bound !== undefined && readsClock(bound)) report(node, "elapsed upper bound");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return violations;
}

/**
 * For `expect(x).toBeLessThan(n)`, `expect(x).not.toBeGreaterThan(n)` and `expect(x < n).toBe(true)`: the
 * expression whose upper bound is asserted (`x`); otherwise undefined.
 */
function upperBoundOf(matcher: ts.PropertyAccessExpression): ts.Expression | undefined {
  let target = matcher.expression;
  let negated = false;
  if (ts.isPropertyAccessExpression(target) && target.name.text === "not") {
    negated = true;
    target = target.expression;
  }
  if (!ts.isCallExpression(target) || !ts.isIdentifier(target.expression) || target.expression.text !== "expect")
    return undefined;
  const subject = target.arguments[0];
  if (subject === undefined) return undefined;
  const name = matcher.name.text;
  if ((!negated && UPPER.has(name)) || (negated && LOWER.has(name))) return subject;
  if ((name === "toBe" || name === "toBeTruthy") && ts.isBinaryExpression(subject)) {
    const operator = subject.operatorToken.kind;
    if (operator === ts.SyntaxKind.LessThanToken || operator === ts.SyntaxKind.LessThanEqualsToken) return subject.left;
    if (operator === ts.SyntaxKind.GreaterThanToken || operator === ts.SyntaxKind.GreaterThanEqualsToken)
      return subject.right;
  }
  return undefined;
}

/** Variables assigned a value computed from the clock, directly or through other such variables. */
function clockDerivedSymbols(source: ts.SourceFile, checker: ts.TypeChecker): Set<ts.Symbol> {
  const assignments: [ts.Symbol, ts.Expression][] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer !== undefined) {
      const symbol = checker.getSymbolAtLocation(node.name);
      if (symbol !== undefined) assignments.push([symbol, node.initializer]);
    }
    if (
      ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isIdentifier(node.left)
    ) {
      const symbol = checker.getSymbolAtLocation(node.left);
      if (symbol !== undefined) assignments.push([symbol, node.right]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const symbols = new Set<ts.Symbol>();
  const mentions = (node: ts.Node): boolean => {
    if (ts.isCallExpression(node) && CLOCK_CALLS.has(node.expression.getText(source))) return true;
    if (ts.isIdentifier(node) && isClockSymbol(node, checker, symbols)) return true;
    return ts.forEachChild(node, mentions) ?? false;
  };
  for (let grown = true; grown;) {
    grown = false;
    for (const [symbol, value] of assignments) {
      if (!symbols.has(symbol) && mentions(value)) {
        symbols.add(symbol);
        grown = true;
      }
    }
  }
  return symbols;
}

function isClockSymbol(node: ts.Identifier, checker: ts.TypeChecker, symbols: Set<ts.Symbol>): boolean {
  const symbol = checker.getSymbolAtLocation(node);
  return symbol !== undefined && symbols.has(symbol);
}

/** A number literal under HANG_MS: a deadline a busy machine can reach. */
function isShortDeadline(node: ts.Expression): boolean {
  return ts.isNumericLiteral(node) && Number(node.text) < HANG_MS;
}

/** `it` for `it`, `it.skipIf(x)`, `test.concurrent.each(rows)`: the function a call chain starts from. */
function rootName(node: ts.Expression): string | undefined {
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node) || ts.isCallExpression(node)) return rootName(node.expression);
  return undefined;
}

function propertyName(name: ts.PropertyName): string | undefined {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined;
}
