/** What a selector token is. */
type TokenKind =
  | 'label'
  | 'string'
  | 'lbrace'
  | 'rbrace'
  | 'comma'
  | 'eq'
  | 'ne'
  | 'in'
  | 'notIn'
  | 'not'
  | 'contains'
  | 'startsWith'
  | 'endsWith'
  | 'all'
  | 'global'
  | 'has'
  | 'lparen'
  | 'rparen'
  | 'and'
  | 'or'
  | 'eof';

/** One token of a selector, with the offset it starts at (for error messages). */
export interface Token {
  readonly kind: TokenKind;
  /** The label name (`label`, `has`) or the literal's text (`string`); empty otherwise. */
  readonly value: string;
  readonly pos: number;
}

/** A tokenizer or parser failure: what was wrong, and at which offset of the input. */
export class SelectorSyntaxError extends Error {
  readonly pos: number;
  constructor(what: string, pos: number) {
    super(what);
    this.name = 'SelectorSyntaxError';
    this.pos = pos;
  }
}

const LABEL_CHAR = /[a-zA-Z0-9_./-]/;
const MAX_LABEL_LENGTH = 512;

const isSpace = (c: string | undefined): boolean =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r';

/**
 * Splits a Calico selector into tokens. Label keys are `[a-zA-Z0-9_./-]{1,512}`; string literals
 * are single- or double-quoted with no escapes; after a label, the next word must be an operator
 * (`==`, `!=`, `in`, `not in`, `contains`, `starts with`, `ends with`), as in Calico's tokenizer.
 * Throws {@link SelectorSyntaxError}.
 */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < input.length && isSpace(input[i])) i++;
  };
  const push = (kind: TokenKind, pos: number, value = ''): void => {
    tokens.push({ kind, value, pos });
  };
  const readLabel = (): string => {
    const start = i;
    while (i < input.length && LABEL_CHAR.test(input[i]!)) i++;
    if (i - start > MAX_LABEL_LENGTH) {
      throw new SelectorSyntaxError(`label longer than ${MAX_LABEL_LENGTH} characters`, start);
    }
    return input.slice(start, i);
  };
  const expectWord = (word: string, what: string, pos: number): void => {
    skipSpace();
    if (!input.startsWith(word, i)) throw new SelectorSyntaxError(what, pos);
    i += word.length;
  };

  for (;;) {
    skipSpace();
    const pos = i;
    if (i >= input.length) {
      push('eof', pos);
      return tokens;
    }
    const c = input[i]!;
    const next = input[i + 1];
    const afterLabel = tokens.at(-1)?.kind === 'label';
    switch (c) {
      case '(':
        push('lparen', pos);
        i++;
        continue;
      case ')':
        push('rparen', pos);
        i++;
        continue;
      case '{':
        push('lbrace', pos);
        i++;
        continue;
      case '}':
        push('rbrace', pos);
        i++;
        continue;
      case ',':
        push('comma', pos);
        i++;
        continue;
      case '"':
      case "'": {
        const end = input.indexOf(c, i + 1);
        if (end < 0) throw new SelectorSyntaxError('unterminated string', pos);
        push('string', pos, input.slice(i + 1, end));
        i = end + 1;
        continue;
      }
      case '=':
        if (next !== '=') throw new SelectorSyntaxError('expected ==', pos);
        push('eq', pos);
        i += 2;
        continue;
      case '!':
        if (next === '=') {
          push('ne', pos);
          i += 2;
        } else {
          push('not', pos);
          i++;
        }
        continue;
      case '&':
        if (next !== '&') throw new SelectorSyntaxError('expected &&', pos);
        push('and', pos);
        i += 2;
        continue;
      case '|':
        if (next !== '|') throw new SelectorSyntaxError('expected ||', pos);
        push('or', pos);
        i += 2;
        continue;
    }
    if (afterLabel) {
      const label = tokens.at(-1)!.value;
      const what = `expected an operator after label '${label}'`;
      if (input.startsWith('contains', i)) {
        i += 'contains'.length;
        push('contains', pos);
      } else if (input.startsWith('starts', i)) {
        i += 'starts'.length;
        expectWord('with', what, pos);
        push('startsWith', pos);
      } else if (input.startsWith('ends', i)) {
        i += 'ends'.length;
        expectWord('with', what, pos);
        push('endsWith', pos);
      } else if (input.startsWith('not', i)) {
        i += 'not'.length;
        expectWord('in', what, pos);
        push('notIn', pos);
      } else if (input.startsWith('in', i)) {
        i += 'in'.length;
        push('in', pos);
      } else {
        throw new SelectorSyntaxError(what, pos);
      }
      continue;
    }
    if (input.startsWith('has(', i)) {
      i += 'has('.length;
      skipSpace();
      const labelPos = i;
      const label = readLabel();
      if (label === '') throw new SelectorSyntaxError('no label name in has( expression', labelPos);
      skipSpace();
      if (input[i] !== ')') throw new SelectorSyntaxError("no closing ')' after has(", i);
      i++;
      push('has', pos, label);
      continue;
    }
    const call = input.startsWith('all(', i)
      ? 'all'
      : input.startsWith('global(', i)
        ? 'global'
        : '';
    if (call !== '') {
      i += call.length + 1;
      skipSpace();
      if (input[i] !== ')') throw new SelectorSyntaxError(`no closing ')' after ${call}(`, i);
      i++;
      push(call, pos);
      continue;
    }
    const label = readLabel();
    if (label === '') throw new SelectorSyntaxError('unexpected characters', pos);
    push('label', pos, label);
  }
}
