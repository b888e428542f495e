import type { Scanner } from './scanner.js';
import { SelectorSyntaxError } from './selector-syntax-error.js';
import type { TokenKind } from './token.js';

/** Word operators, tried in this order, with the second word some of them need. */
const WORD_OPERATORS: readonly { word: string; then?: string; kind: TokenKind }[] = [
  { word: 'contains', kind: 'contains' },
  { word: 'starts', then: 'with', kind: 'startsWith' },
  { word: 'ends', then: 'with', kind: 'endsWith' },
  { word: 'not', then: 'in', kind: 'notIn' },
  { word: 'in', kind: 'in' },
];

/**
 * Reads the word operator that must follow label `label` (`contains`, `starts with`,
 * `ends with`, `not in`, `in`), as Calico's tokenizer does. Throws {@link SelectorSyntaxError}
 * naming the label when none follows.
 */
export function scanWordOperator(s: Scanner, label: string): void {
  const pos = s.i;
  const what = `expected an operator after label '${label}'`;
  const op = WORD_OPERATORS.find((o) => s.startsWith(o.word));
  if (!op) throw new SelectorSyntaxError(what, pos);
  s.i += op.word.length;
  if (op.then !== undefined) s.expectWord(op.then, what, pos);
  s.push(op.kind, pos);
}
