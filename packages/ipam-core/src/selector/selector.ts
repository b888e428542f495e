import { IpamError } from '../errors.js';
import { parseExpression } from './parse-expression.js';
import type { LabelPredicate } from './label-predicate.js';
import { SelectorSyntaxError } from './selector-syntax-error.js';
import { tokenize } from './tokenize.js';

/** A parsed Calico label selector. */
export interface Selector {
  /** The text it was parsed from. */
  readonly source: string;
  /** Whether the labels satisfy the selector. */
  matches(labels: Readonly<Record<string, string>>): boolean;
}

/** Selectors are evaluated for every pool on every assignment: parse each text once. */
const CACHE_LIMIT = 1024;
const cache = new Map<string, Selector>();

/**
 * Parses a Calico selector (`all()`, `k == "v"`, `k != 'v'`, `has(k)`, `k in {"a","b"}`,
 * `k not in {...}`, `contains`, `starts with`, `ends with`, `!`, `&&`, `||`, parentheses). The
 * empty string matches everything. Results are cached by text. A syntax error throws
 * `IpamError('InvalidArgument', 'invalid selector "<text>": <what> at <pos>')`.
 */
export function parseSelector(text: string): Selector {
  const cached = cache.get(text);
  if (cached) return cached;
  let predicate: LabelPredicate;
  try {
    predicate = parseExpression(tokenize(text));
  } catch (e) {
    if (!(e instanceof SelectorSyntaxError)) throw e;
    throw new IpamError(
      'InvalidArgument',
      `invalid selector ${JSON.stringify(text)}: ${e.message} at ${e.pos}`,
      { identifier: text, cause: e },
    );
  }
  const selector: Selector = { source: text, matches: predicate };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, selector);
  return selector;
}
