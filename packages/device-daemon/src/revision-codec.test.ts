import { describe, expect, it } from 'vitest';
import { decodeRevisionFile, encodeRevisionFile } from './revision-codec.js';
import { revisionFiles, thrown } from './test-fixtures.js';

describe('the last good revision file', () => {
  it('round-trips a revision, missing files included', () => {
    const files = revisionFiles({
      pools: { p: { bridge: 'b', subnet: '10.0.5.0/24', gateway: '10.0.5.1' } },
      containers: { a: { network: { pool: 'p' }, lxc: 'lxc.net.0.ipv4.address = 10.0.5.9' } },
    });
    expect(decodeRevisionFile(encodeRevisionFile(files))).toEqual(files);
    const none = {
      deviceJson: undefined,
      containers: [{ name: 'x', runJson: undefined, lxcConfig: undefined }],
    };
    expect(decodeRevisionFile(encodeRevisionFile(none))).toEqual(none);
  });

  it.each([
    ['not JSON', '{'],
    ['another version', '{"version":2,"deviceJson":null,"containers":[]}'],
    ['a bad container', '{"version":1,"deviceJson":null,"containers":[{"name":1}]}'],
  ])('refuses %s as LeaseStoreCorrupt', (_why, text) => {
    expect(thrown(() => decodeRevisionFile(text))).toMatchObject({ code: 'LeaseStoreCorrupt' });
  });
});
