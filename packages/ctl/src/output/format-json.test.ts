import { describe, expect, it } from 'vitest';
import { formatJson } from './format-json.js';

describe('formatJson', () => {
  it('writes as Go json.MarshalIndent: two-space indentation, exact uint64, Go escapes', () => {
    expect(
      formatJson({ seq: 18446744073709551615n, name: 'a<b>', tags: [], gone: undefined }),
    ).toBe('{\n  "seq": 18446744073709551615,\n  "name": "a\\u003cb\\u003e",\n  "tags": []\n}');
  });

  it('writes a lone surrogate as U+FFFD, as Go does (a Go string cannot hold one)', () => {
    expect(formatJson(['a\ud800'])).toBe('[\n  "a\ufffd"\n]');
  });
});
