// QStash's `Upstash-Retry-Delay`: an arithmetic expression in milliseconds over `retried` (how
// many times the message was retried so far). Parsed by a small recursive-descent parser into a
// tree, never `eval`: a stored expression is user input evaluated inside the shard.
//
// Grammar:  expr := term (("+" | "-") term)*     term := unary (("*" | "/" | "%") unary)*
//           unary := "-" unary | primary         primary := number | "retried" | call | "(" expr ")"
//           call := name "(" expr ("," expr)* ")"

/** The longest delay an expression may ask for: one day, like QStash's own retry cap. */
export const MAX_RETRY_DELAY_EXPRESSION_MS = 86_400_000;
export const MAX_RETRY_DELAY_EXPRESSION_LENGTH = 256;

type Node =
  | { kind: "number"; value: number }
  | { kind: "retried" }
  | { kind: "negate"; operand: Node }
  | { kind: "binary"; operator: "+" | "-" | "*" | "/" | "%"; left: Node; right: Node }
  | { kind: "call"; name: FunctionName; args: Node[] };

const FUNCTIONS = {
  pow: { arity: [2, 2], apply: (a: number[]) => (a[0] ?? 0) ** (a[1] ?? 0) },
  exp: { arity: [1, 1], apply: (a: number[]) => Math.exp(a[0] ?? 0) },
  sqrt: { arity: [1, 1], apply: (a: number[]) => Math.sqrt(a[0] ?? 0) },
  abs: { arity: [1, 1], apply: (a: number[]) => Math.abs(a[0] ?? 0) },
  floor: { arity: [1, 1], apply: (a: number[]) => Math.floor(a[0] ?? 0) },
  ceil: { arity: [1, 1], apply: (a: number[]) => Math.ceil(a[0] ?? 0) },
  round: { arity: [1, 1], apply: (a: number[]) => Math.round(a[0] ?? 0) },
  log: { arity: [1, 1], apply: (a: number[]) => Math.log(a[0] ?? 0) },
  min: { arity: [1, 32], apply: (a: number[]) => Math.min(...a) },
  max: { arity: [1, 32], apply: (a: number[]) => Math.max(...a) },
} as const satisfies Record<string, { arity: [number, number]; apply: (args: number[]) => number }>;
type FunctionName = keyof typeof FUNCTIONS;

export type ParsedRetryDelay = { ok: true; expression: RetryDelayExpression } | { ok: false; error: string };

/** A parsed expression; `delayMs(retried)` evaluates it. */
export interface RetryDelayExpression {
  readonly source: string;
  delayMs(retried: number): number;
}

const TOKEN = /\s*(?:(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(\S))/y;

function tokenize(source: string): string[] | string {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    const match = TOKEN.exec(source);
    if (match === null) break; // only trailing whitespace left
    const token = match[1] ?? match[2] ?? match[3];
    if (token === undefined) break;
    if (match[3] !== undefined && !"+-*/%(),".includes(token)) return `unexpected character "${token}"`;
    tokens.push(token);
  }
  return tokens;
}

class Parser {
  private position = 0;
  constructor(private readonly tokens: readonly string[]) {}

  parseAll(): Node {
    if (this.tokens.length === 0) throw new SyntaxError("is empty");
    const node = this.expr();
    const extra = this.peek();
    if (extra !== undefined) throw new SyntaxError(`unexpected "${extra}"`);
    return node;
  }

  private peek(): string | undefined {
    return this.tokens[this.position];
  }

  private next(): string {
    const token = this.tokens[this.position++];
    if (token === undefined) throw new SyntaxError("ends too early");
    return token;
  }

  private expect(token: string): void {
    const got = this.next();
    if (got !== token) throw new SyntaxError(`expected "${token}", got "${got}"`);
  }

  private expr(): Node {
    let node = this.term();
    for (let op = this.peek(); op === "+" || op === "-"; op = this.peek()) {
      this.position++;
      node = { kind: "binary", operator: op, left: node, right: this.term() };
    }
    return node;
  }

  private term(): Node {
    let node = this.unary();
    for (let op = this.peek(); op === "*" || op === "/" || op === "%"; op = this.peek()) {
      this.position++;
      node = { kind: "binary", operator: op, left: node, right: this.unary() };
    }
    return node;
  }

  private unary(): Node {
    if (this.peek() === "-") {
      this.position++;
      return { kind: "negate", operand: this.unary() };
    }
    return this.primary();
  }

  private primary(): Node {
    const token = this.next();
    if (token === "(") {
      const inner = this.expr();
      this.expect(")");
      return inner;
    }
    if (/^\d/.test(token)) return { kind: "number", value: Number(token) };
    if (token === "retried") return { kind: "retried" };
    if (Object.hasOwn(FUNCTIONS, token)) return this.call(token as FunctionName);
    throw new SyntaxError(/^[A-Za-z_]/.test(token) ? `unknown name "${token}"` : `unexpected "${token}"`);
  }

  private call(name: FunctionName): Node {
    this.expect("(");
    const args = [this.expr()];
    while (this.peek() === ",") {
      this.position++;
      args.push(this.expr());
    }
    this.expect(")");
    const [least, most] = FUNCTIONS[name].arity;
    if (args.length < least || args.length > most) {
      throw new SyntaxError(`${name}() takes ${least === most ? least : `${least} to ${most}`} arguments`);
    }
    return { kind: "call", name, args };
  }
}

function evaluate(node: Node, retried: number): number {
  switch (node.kind) {
    case "number":
      return node.value;
    case "retried":
      return retried;
    case "negate":
      return -evaluate(node.operand, retried);
    case "call":
      return FUNCTIONS[node.name].apply(node.args.map((arg) => evaluate(arg, retried)));
    case "binary": {
      const left = evaluate(node.left, retried);
      const right = evaluate(node.right, retried);
      if (node.operator === "+") return left + right;
      if (node.operator === "-") return left - right;
      if (node.operator === "*") return left * right;
      if (node.operator === "/") return left / right;
      return left % right;
    }
  }
}

/**
 * Parses a retry delay expression; the error says what is wrong with it.
 *
 * @example
 * const parsed = parseRetryDelayExpression("pow(2, retried) * 1000");
 * parsed.ok && parsed.expression.delayMs(3) === 8000
 */
export function parseRetryDelayExpression(source: string): ParsedRetryDelay {
  if (source.length > MAX_RETRY_DELAY_EXPRESSION_LENGTH) {
    return { ok: false, error: `must be at most ${MAX_RETRY_DELAY_EXPRESSION_LENGTH} characters` };
  }
  const tokens = tokenize(source);
  if (typeof tokens === "string") return { ok: false, error: tokens };
  try {
    const tree = new Parser(tokens).parseAll();
    return { ok: true, expression: { source, delayMs: (retried) => clampDelayMs(evaluate(tree, retried)) } };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { ok: false, error: `is not a valid expression: ${error.message}` };
  }
}

/** A result as a whole number of milliseconds in [0, one day]; NaN (say 0/0) is 0. */
function clampDelayMs(value: number): number {
  if (!(value > 0)) return 0;
  return Math.min(MAX_RETRY_DELAY_EXPRESSION_MS, Math.round(value));
}

/** The delay a stored expression gives before retry `attempt` (1 = after the first failure). */
export function retryDelayFromExpressionMs(source: string, attempt: number): number | null {
  const parsed = parseRetryDelayExpression(source);
  return parsed.ok ? parsed.expression.delayMs(attempt - 1) : null;
}
