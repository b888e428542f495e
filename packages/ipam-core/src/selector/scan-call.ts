import type { Scanner } from './scanner.js';
import { SelectorSyntaxError } from './selector-syntax-error.js';

/** Reads `has(<label>)`, whose token carries the label. */
function scanHas(s: Scanner, pos: number): void {
  s.i += 'has('.length;
  s.skipSpace();
  const labelPos = s.i;
  const label = s.readLabel();
  if (label === '') throw new SelectorSyntaxError('no label name in has( expression', labelPos);
  s.skipSpace();
  if (s.input[s.i] !== ')') throw new SelectorSyntaxError("no closing ')' after has(", s.i);
  s.i++;
  s.push('has', pos, label);
}

/**
 * Reads a call (`has(<label>)`, `all()`, `global()`) at the scanner; returns false, reading
 * nothing, when none starts there. Throws {@link SelectorSyntaxError} for a call with no closing
 * parenthesis or a `has(` with no label.
 */
export function scanCall(s: Scanner): boolean {
  const pos = s.i;
  if (s.startsWith('has(')) {
    scanHas(s, pos);
    return true;
  }
  const call = s.startsWith('all(') ? 'all' : s.startsWith('global(') ? 'global' : '';
  if (call === '') return false;
  s.i += call.length + 1;
  s.skipSpace();
  if (s.input[s.i] !== ')') throw new SelectorSyntaxError(`no closing ')' after ${call}(`, s.i);
  s.i++;
  s.push(call, pos);
  return true;
}
