import { describe, expect, it } from 'vitest';
import { InstallError } from './install-error.js';
import { decodeRecord, encodeRecord, recordPath, sha256 } from './install-record.js';

const DIGEST = sha256(Buffer.from('client'));

describe('the install record', () => {
  it('round-trips, the same files giving the same bytes', () => {
    const record = { files: [{ path: '/opt/cni/bin/netledger-ipam', sha256: DIGEST }] };
    const text = encodeRecord(record);
    expect(encodeRecord(record).equals(text)).toBe(true);
    expect(decodeRecord(text.toString(), '/r')).toEqual(record);
  });

  it('lives in the config directory under a name no runtime loads as a network config', () => {
    const path = recordPath('/etc/cni/net.d');
    expect(path).toBe('/etc/cni/net.d/.netledger-install.record');
    expect(path).not.toMatch(/\.(conf|conflist|json)$/);
  });

  it.each([
    ['not json', /not JSON/],
    ['{"files": []}', /no "writer"/],
    ['{"writer": "netledger-ipam install-cni"}', /no files list/],
    [
      '{"writer": "netledger-ipam install-cni", "files": [{"path": "x", "sha256": "00"}]}',
      /absolute path/,
    ],
    [
      '{"writer": "netledger-ipam install-cni", "files": [{"path": "/x", "sha256": "00"}]}',
      /\/x without a SHA-256/,
    ],
  ])('refuses %s, naming the file', (text, why) => {
    expect(() => decodeRecord(text, '/etc/cni/net.d/.netledger-install.record')).toThrow(
      InstallError,
    );
    expect(() => decodeRecord(text, '/etc/cni/net.d/.netledger-install.record')).toThrow(why);
    expect(() => decodeRecord(text, '/etc/cni/net.d/.netledger-install.record')).toThrow(
      /^\/etc\/cni\/net\.d\/\.netledger-install\.record is not a netledger install record/,
    );
  });
});
