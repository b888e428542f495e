import type { Token } from './tokenize.js';
import { SelectorSyntaxError } from './tokenize.js';

/** A compiled selector expression: a predicate over a label map. */
export type LabelPredicate = (labels: Readonly<Record<string, string>>) => boolean;

const always: LabelPredicate = () => true;

const lookup = (labels: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(labels, key) ? labels[key] : undefined;

/**
 * Parses Calico selector tokens (ending in `eof`) into a predicate, with Calico's grammar:
 * `||` binds loosest, then `&&`, then prefix `!` (repeated `!` collapse); `!=` and `not in` also
 * match when the label is absent, every other operator needs the label present.
 * Throws {@link SelectorSyntaxError}.
 */
export function parseExpression(tokens: readonly Token[]): LabelPredicate {
  let at = 0;
  const peek = (): Token => tokens[at] ?? tokens[tokens.length - 1]!;
  const fail = (what: string, token: Token = peek()): never => {
    throw new SelectorSyntaxError(what, token.pos);
  };

  const parseOr = (): LabelPredicate => {
    const terms = [parseAnd()];
    while (peek().kind === 'or') {
      at++;
      terms.push(parseAnd());
    }
    if (terms.length === 1) return terms[0]!;
    return (labels) => terms.some((t) => t(labels));
  };

  const parseAnd = (): LabelPredicate => {
    const terms = [parseOperation()];
    while (peek().kind === 'and') {
      at++;
      terms.push(parseOperation());
    }
    if (terms.length === 1) return terms[0]!;
    return (labels) => terms.every((t) => t(labels));
  };

  const parseString = (): string => {
    const t = peek();
    if (t.kind !== 'string') fail('expected string');
    at++;
    return t.value;
  };

  const parseSet = (): ReadonlySet<string> => {
    if (peek().kind !== 'lbrace') fail('expected set literal');
    at++;
    const values = new Set<string>();
    while (peek().kind === 'string') {
      values.add(peek().value);
      at++;
      if (peek().kind !== 'comma') break;
      at++;
    }
    if (peek().kind !== 'rbrace') fail('expected }');
    at++;
    return values;
  };

  const parseLabelOperation = (key: string): LabelPredicate => {
    const op = peek();
    at++;
    switch (op.kind) {
      case 'eq': {
        const v = parseString();
        return (labels) => lookup(labels, key) === v;
      }
      case 'ne': {
        const v = parseString();
        return (labels) => lookup(labels, key) !== v;
      }
      case 'contains': {
        const v = parseString();
        return (labels) => lookup(labels, key)?.includes(v) ?? false;
      }
      case 'startsWith': {
        const v = parseString();
        return (labels) => lookup(labels, key)?.startsWith(v) ?? false;
      }
      case 'endsWith': {
        const v = parseString();
        return (labels) => lookup(labels, key)?.endsWith(v) ?? false;
      }
      case 'in': {
        const set = parseSet();
        return (labels) => {
          const v = lookup(labels, key);
          return v !== undefined && set.has(v);
        };
      }
      case 'notIn': {
        const set = parseSet();
        return (labels) => {
          const v = lookup(labels, key);
          return v === undefined || !set.has(v);
        };
      }
      case 'eof':
        return fail('unexpected end of selector', op);
      default:
        return fail(`expected an operator after label '${key}'`, op);
    }
  };

  const parseOperation = (): LabelPredicate => {
    let negated = false;
    while (peek().kind === 'not') {
      negated = !negated;
      at++;
    }
    const t = peek();
    let inner: LabelPredicate;
    switch (t.kind) {
      case 'has':
        at++;
        inner = (labels) => Object.hasOwn(labels, t.value);
        break;
      case 'all':
      case 'global':
        at++;
        inner = always;
        break;
      case 'label':
        at++;
        inner = parseLabelOperation(t.value);
        break;
      case 'lparen':
        at++;
        inner = parseOr();
        if (peek().kind !== 'rparen') fail('expected )');
        at++;
        break;
      case 'eof':
        return fail('unexpected end of selector');
      default:
        return fail(`unexpected token '${describe(t)}'`);
    }
    if (!negated) return inner;
    return (labels) => !inner(labels);
  };

  if (peek().kind === 'eof') return always;
  const root = parseOr();
  if (peek().kind !== 'eof') fail('unexpected content at end of selector');
  return root;
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'string':
      return JSON.stringify(t.value);
    case 'label':
    case 'has':
      return t.value;
    default:
      return t.kind;
  }
}
