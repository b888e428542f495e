import type { LabelPredicate } from './label-predicate.js';
import type { TokenKind } from './token.js';
import type { TokenCursor } from './token-cursor.js';

type Labels = Readonly<Record<string, string>>;

const lookup = (labels: Labels, key: string): string | undefined =>
  Object.hasOwn(labels, key) ? labels[key] : undefined;

/**
 * Operators taking a string: given the label's value (undefined when absent) and the literal.
 * Only `!=` matches an absent label.
 */
const STRING_OPERATORS: Partial<
  Readonly<Record<TokenKind, (value: string | undefined, literal: string) => boolean>>
> = {
  eq: (v, s) => v === s,
  ne: (v, s) => v !== s,
  contains: (v, s) => v?.includes(s) ?? false,
  startsWith: (v, s) => v?.startsWith(s) ?? false,
  endsWith: (v, s) => v?.endsWith(s) ?? false,
};

/** Reads a string literal. */
function parseString(cursor: TokenCursor): string {
  return cursor.expect('string', 'expected string').value;
}

/** Reads a set literal: `{` strings separated by commas (a trailing comma allowed) `}`. */
function parseSet(cursor: TokenCursor): ReadonlySet<string> {
  cursor.expect('lbrace', 'expected set literal');
  const values = new Set<string>();
  while (cursor.peek().kind === 'string') {
    values.add(cursor.next().value);
    if (!cursor.accept('comma')) break;
  }
  cursor.expect('rbrace', 'expected }');
  return values;
}

/**
 * Parses the operator and operand after label `key` (`==`, `!=`, `contains`, `starts with`,
 * `ends with` with a string; `in`, `not in` with a set). `!=` and `not in` also match when the
 * label is absent; every other operator needs it present. Throws `SelectorSyntaxError`.
 */
export function parseLabelOperation(cursor: TokenCursor, key: string): LabelPredicate {
  const op = cursor.next();
  const compare = STRING_OPERATORS[op.kind];
  if (compare) {
    const literal = parseString(cursor);
    return (labels) => compare(lookup(labels, key), literal);
  }
  switch (op.kind) {
    case 'in': {
      const set = parseSet(cursor);
      return (labels) => {
        const v = lookup(labels, key);
        return v !== undefined && set.has(v);
      };
    }
    case 'notIn': {
      const set = parseSet(cursor);
      return (labels) => {
        const v = lookup(labels, key);
        return v === undefined || !set.has(v);
      };
    }
    case 'eof':
      return cursor.fail('unexpected end of selector', op);
    default:
      return cursor.fail(`expected an operator after label '${key}'`, op);
  }
}
