import { describe, expect, it } from 'vitest';
import {
  affinityLabelSelector,
  affinityName,
  alternateAffinityName,
  base32NoPad,
  cidrToName,
  handleName,
  hostnameHash,
} from './calico-names.js';

describe('Calico names', () => {
  it.each([
    ['10.0.0.0/26', '10-0-0-0-26'],
    ['192.168.255.192/26', '192-168-255-192-26'],
    ['fd80:24e2:f998:72d6::/122', 'fd80-24e2-f998-72d6---122'],
    ['fd00::/122', 'fd00---122'],
  ])('cidrToName(%s) = %s', (cidr, name) => {
    expect(cidrToName(cidr)).toBe(name);
  });

  it('names affinities <host>-<cidr> and hashes names of 253 characters or more', () => {
    expect(affinityName('node1', '10.0.0.0/26')).toBe('node1-10-0-0-0-26');
    const host = 'a'.repeat(241); // 241 + 1 + 11 = 253: hashed
    const name = affinityName(host, '10.0.0.0/26');
    expect(name).toHaveLength(252);
    expect(name).toMatch(/^a{228}-10-0-0-0-26-[0-9a-f]{11}$/);
    expect(affinityName('a'.repeat(240), '10.0.0.0/26')).toHaveLength(252); // 252 < 253: kept
    expect(affinityName(`${host}b`, '10.0.0.0/26')).not.toBe(name);
  });

  it('gives the other affinity type a name of its own that no host name produces', () => {
    const alt = alternateAffinityName('node1', 'virtual', '10.0.0.0/26');
    expect(alt).toMatch(/^[0-9a-f]{16}-10-0-0-0-26-virtual$/);
    expect(alt).not.toBe(alternateAffinityName('node1', 'host', '10.0.0.0/26'));
  });

  it('lower-cases handle names', () => {
    expect(handleName('k8s-pod-network.ABC')).toBe('k8s-pod-network.abc');
  });

  it('encodes base32 as Go does (RFC 4648 vectors, no padding)', () => {
    const enc = (s: string): string => base32NoPad(new TextEncoder().encode(s));
    expect(['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map(enc)).toEqual([
      '',
      'MY',
      'MZXQ',
      'MZXW6',
      'MZXW6YQ',
      'MZXW6YTB',
      'MZXW6YTBOI',
    ]);
  });

  it('hashes hostnames for the label: SHA3-256 in 52 base32 characters', () => {
    // SHA3-256("") = a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a
    expect(hostnameHash('')).toBe(
      base32NoPad(
        Buffer.from('a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a', 'hex'),
      ),
    );
    expect(hostnameHash('node1')).toHaveLength(52);
    expect(hostnameHash('node1')).not.toBe(hostnameHash('node10'));
  });

  it('builds the server-side selector of a host-scoped affinity list', () => {
    expect(affinityLabelSelector({})).toBe('');
    expect(affinityLabelSelector({ host: 'n', affinityType: 'host', ipVersion: 6 })).toBe(
      `projectcalico.org/hostname-hash=${hostnameHash('n')},projectcalico.org/affinity-type=host,projectcalico.org/ip-version=6`,
    );
  });
});
