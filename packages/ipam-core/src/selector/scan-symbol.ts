import type { Scanner } from './scanner.js';
import { SelectorSyntaxError } from './selector-syntax-error.js';
import type { TokenKind } from './token.js';

const PUNCTUATION: Readonly<Record<string, TokenKind>> = {
  '(': 'lparen',
  ')': 'rparen',
  '{': 'lbrace',
  '}': 'rbrace',
  ',': 'comma',
};

/** Two-character operators whose first character means nothing alone. */
const DOUBLED: Readonly<Record<string, { kind: TokenKind; text: string }>> = {
  '=': { kind: 'eq', text: '==' },
  '&': { kind: 'and', text: '&&' },
  '|': { kind: 'or', text: '||' },
};

/** Reads a single- or double-quoted string literal (no escapes) starting at the scanner. */
function scanString(s: Scanner, quote: string): void {
  const pos = s.i;
  const end = s.input.indexOf(quote, pos + 1);
  if (end < 0) throw new SelectorSyntaxError('unterminated string', pos);
  s.push('string', pos, s.input.slice(pos + 1, end));
  s.i = end + 1;
}

/**
 * Reads one punctuation mark, string literal or symbol operator (`==`, `!=`, `!`, `&&`, `||`) at
 * the scanner; returns false, reading nothing, when the next character starts none of them.
 * Throws {@link SelectorSyntaxError} for a lone `=`, `&` or `|`, or an unterminated string.
 */
export function scanSymbol(s: Scanner): boolean {
  const pos = s.i;
  const c = s.input[pos]!;
  const punctuation = PUNCTUATION[c];
  if (punctuation) {
    s.push(punctuation, pos);
    s.i++;
    return true;
  }
  if (c === '"' || c === "'") {
    scanString(s, c);
    return true;
  }
  const doubled = DOUBLED[c];
  if (doubled) {
    if (s.input[pos + 1] !== c) throw new SelectorSyntaxError(`expected ${doubled.text}`, pos);
    s.push(doubled.kind, pos);
    s.i += 2;
    return true;
  }
  if (c !== '!') return false;
  const ne = s.input[pos + 1] === '=';
  s.push(ne ? 'ne' : 'not', pos);
  s.i += ne ? 2 : 1;
  return true;
}
