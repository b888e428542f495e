/** A tokenizer or parser failure: what was wrong, and at which offset of the input. */
export class SelectorSyntaxError extends Error {
  readonly pos: number;
  constructor(what: string, pos: number) {
    super(what);
    this.name = 'SelectorSyntaxError';
    this.pos = pos;
  }
}
