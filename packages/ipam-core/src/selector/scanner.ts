import { SelectorSyntaxError } from './selector-syntax-error.js';
import type { Token, TokenKind } from './token.js';

const LABEL_CHAR = /[a-zA-Z0-9_./-]/;
const MAX_LABEL_LENGTH = 512;

const isSpace = (c: string | undefined): boolean =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** The tokenizer's position in its input and the tokens read so far. */
export class Scanner {
  /** The offset of the next character to read. */
  i = 0;
  readonly tokens: Token[] = [];
  constructor(readonly input: string) {}

  /** Moves past spaces, tabs and line breaks. */
  skipSpace(): void {
    while (this.i < this.input.length && isSpace(this.input[this.i])) this.i++;
  }

  /** Whether the input continues with `text` at the current offset. */
  startsWith(text: string): boolean {
    return this.input.startsWith(text, this.i);
  }

  /** Appends a token starting at `pos`. */
  push(kind: TokenKind, pos: number, value = ''): void {
    this.tokens.push({ kind, value, pos });
  }

  /** Reads a label key (`[a-zA-Z0-9_./-]`, at most 512 characters; may be empty). */
  readLabel(): string {
    const start = this.i;
    while (this.i < this.input.length && LABEL_CHAR.test(this.input[this.i]!)) this.i++;
    if (this.i - start > MAX_LABEL_LENGTH) {
      throw new SelectorSyntaxError(`label longer than ${MAX_LABEL_LENGTH} characters`, start);
    }
    return this.input.slice(start, this.i);
  }

  /** Reads `word` after optional spaces, or throws `what` at `pos`. */
  expectWord(word: string, what: string, pos: number): void {
    this.skipSpace();
    if (!this.startsWith(word)) throw new SelectorSyntaxError(what, pos);
    this.i += word.length;
  }
}
