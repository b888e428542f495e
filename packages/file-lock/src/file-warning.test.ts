import { describe, expect, it } from 'vitest';
import { formatFileWarning, safeWarner } from './file-warning.js';

const warning = {
  message: 'could not remove the lock breaker',
  path: '/run/x.lock.break',
  cause: new Error('EIO: i/o error'),
};

describe('file warnings', () => {
  it('format as one line: message, path, cause', () => {
    expect(formatFileWarning(warning)).toBe(
      'could not remove the lock breaker /run/x.lock.break: EIO: i/o error',
    );
  });

  it('reach onWarning; one that throws changes nothing, and none is a no-op', () => {
    const seen: unknown[] = [];
    safeWarner((w) => void seen.push(w))(warning);
    expect(seen).toEqual([warning]);
    expect(() =>
      safeWarner(() => {
        throw new Error('logger broke');
      })(warning),
    ).not.toThrow();
    expect(() => safeWarner(undefined)(warning)).not.toThrow();
  });
});
