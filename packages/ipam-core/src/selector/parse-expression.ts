import type { LabelPredicate } from './label-predicate.js';
import { matchAll } from './label-predicate.js';
import { parseLabelOperation } from './parse-label-operation.js';
import type { Token, TokenKind } from './token.js';
import { TokenCursor } from './token-cursor.js';

/** `||`, the loosest level: one or more `&&` terms. */
function parseOr(cursor: TokenCursor): LabelPredicate {
  const terms = parseSeparated(cursor, 'or', parseAnd);
  if (terms.length === 1) return terms[0]!;
  return (labels) => terms.some((t) => t(labels));
}

/** `&&`: one or more operations. */
function parseAnd(cursor: TokenCursor): LabelPredicate {
  const terms = parseSeparated(cursor, 'and', parseOperation);
  if (terms.length === 1) return terms[0]!;
  return (labels) => terms.every((t) => t(labels));
}

/** One or more `parse`s separated by `separator` tokens. */
function parseSeparated(
  cursor: TokenCursor,
  separator: TokenKind,
  parse: (cursor: TokenCursor) => LabelPredicate,
): LabelPredicate[] {
  const terms = [parse(cursor)];
  while (cursor.accept(separator)) terms.push(parse(cursor));
  return terms;
}

/** Prefix `!`s (an even number cancel out) before a primary. */
function parseOperation(cursor: TokenCursor): LabelPredicate {
  let negated = false;
  while (cursor.accept('not')) negated = !negated;
  const inner = parsePrimary(cursor);
  if (!negated) return inner;
  return (labels) => !inner(labels);
}

/** `has(k)`, `all()`, `global()`, a label operation, or a parenthesised expression. */
function parsePrimary(cursor: TokenCursor): LabelPredicate {
  const t = cursor.peek();
  switch (t.kind) {
    case 'has':
      cursor.next();
      return (labels) => Object.hasOwn(labels, t.value);
    case 'all':
    case 'global':
      cursor.next();
      return matchAll;
    case 'label':
      cursor.next();
      return parseLabelOperation(cursor, t.value);
    case 'lparen': {
      cursor.next();
      const inner = parseOr(cursor);
      cursor.expect('rparen', 'expected )');
      return inner;
    }
    case 'eof':
      return cursor.fail('unexpected end of selector');
    default:
      return cursor.fail(`unexpected token '${describe(t)}'`);
  }
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

/**
 * Parses Calico selector tokens (ending in `eof`) into a predicate, with Calico's grammar:
 * `||` binds loosest, then `&&`, then prefix `!` (repeated `!` collapse); `!=` and `not in` also
 * match when the label is absent, every other operator needs the label present.
 * Throws `SelectorSyntaxError`.
 */
export function parseExpression(tokens: readonly Token[]): LabelPredicate {
  const cursor = new TokenCursor(tokens);
  if (cursor.peek().kind === 'eof') return matchAll;
  const root = parseOr(cursor);
  if (cursor.peek().kind !== 'eof') cursor.fail('unexpected content at end of selector');
  return root;
}
