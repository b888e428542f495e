import { scanCall } from './scan-call.js';
import { scanSymbol } from './scan-symbol.js';
import { scanWordOperator } from './scan-word-operator.js';
import { Scanner } from './scanner.js';
import { SelectorSyntaxError } from './selector-syntax-error.js';
import type { Token } from './token.js';

/**
 * Splits a Calico selector into tokens. Label keys are `[a-zA-Z0-9_./-]{1,512}`; string literals
 * are single- or double-quoted with no escapes; after a label, the next word must be an operator
 * (`==`, `!=`, `in`, `not in`, `contains`, `starts with`, `ends with`), as in Calico's tokenizer.
 * Throws {@link SelectorSyntaxError}.
 */
export function tokenize(input: string): Token[] {
  const s = new Scanner(input);
  for (;;) {
    s.skipSpace();
    const pos = s.i;
    if (pos >= input.length) {
      s.push('eof', pos);
      return s.tokens;
    }
    if (scanSymbol(s)) continue;
    const previous = s.tokens.at(-1);
    if (previous?.kind === 'label') {
      scanWordOperator(s, previous.value);
      continue;
    }
    if (scanCall(s)) continue;
    const label = s.readLabel();
    if (label === '') throw new SelectorSyntaxError('unexpected characters', pos);
    s.push('label', pos, label);
  }
}
