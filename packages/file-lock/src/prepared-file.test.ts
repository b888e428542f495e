import { describe, expect, it } from 'vitest';
import { preparedFilePid } from './prepared-file.js';

describe('preparedFilePid', () => {
  it.each<[string, number | undefined]>([
    ['store.json.lock-1234-9f3a', 1234],
    ['store.json.lock-1234-n', 1234],
    ['store.json.lock.1234.9f3a', 1234],
    ['store.json.lock', undefined],
    ['store.json.lock.break', undefined],
    ['store.json.lock-0-x', undefined],
    ['store.json.lock-12x-y', undefined],
    ['store.json.lock-12-', undefined],
    ['store.json.tmp-1234-ab', undefined],
    ['other.lock-1234-ab', undefined],
  ])('%s -> %s', (name, pid) => {
    expect(preparedFilePid('store.json.lock', name)).toBe(pid);
  });
});
