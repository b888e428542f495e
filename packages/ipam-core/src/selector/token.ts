/** What a selector token is. */
export type TokenKind =
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
