import { SelectorSyntaxError } from './selector-syntax-error.js';
import type { Token, TokenKind } from './token.js';

/** The parser's position in a token list that ends in `eof`. */
export class TokenCursor {
  private at = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  /** The next token (the final `eof` once the list is used up). */
  peek(): Token {
    return this.tokens[this.at] ?? this.tokens[this.tokens.length - 1]!;
  }

  /** Returns the next token and moves past it. */
  next(): Token {
    const t = this.peek();
    this.at++;
    return t;
  }

  /** Moves past the next token if it is a `kind`; returns whether it was. */
  accept(kind: TokenKind): boolean {
    if (this.peek().kind !== kind) return false;
    this.at++;
    return true;
  }

  /** Moves past the next token, which must be a `kind`; otherwise fails with `what`. */
  expect(kind: TokenKind, what: string): Token {
    if (this.peek().kind !== kind) this.fail(what);
    return this.next();
  }

  /** Throws a {@link SelectorSyntaxError} at `token` (default: the next one). */
  fail(what: string, token: Token = this.peek()): never {
    throw new SelectorSyntaxError(what, token.pos);
  }
}
