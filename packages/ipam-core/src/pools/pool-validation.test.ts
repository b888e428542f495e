import { describe, expect, it } from 'vitest';
import type { IpamErrorCode } from '../errors.js';
import type { IPPool, IPPoolSpec } from '../model/resources.js';
import { validatePool, validatePoolUpdate } from './pool-validation.js';

const pool = (spec: Partial<IPPoolSpec>, name = 'p1'): IPPool => ({
  metadata: { name },
  spec: { cidr: '10.0.0.0/16', ...spec },
});

function errorOf(f: () => unknown): { code?: IpamErrorCode; message?: string } {
  try {
    f();
  } catch (e) {
    return e as { code: IpamErrorCode; message: string };
  }
  return {};
}

describe('validatePool', () => {
  it('returns the pool with defaults and a canonical CIDR', () => {
    const out = validatePool(pool({ cidr: 'fd00:0:0::/64' }), []);
    expect(out.spec).toEqual({
      cidr: 'fd00::/64',
      blockSize: 122,
      nodeSelector: 'all()',
      allowedUses: ['Workload', 'Tunnel'],
      assignmentMode: 'Automatic',
    });
  });

  it.each<[string, IPPool, RegExp]>([
    ['an upper-case name', pool({}, 'Pool1'), /lower case alphanumeric/],
    ['a name ending in -', pool({}, 'pool-'), /lower case alphanumeric/],
    ['an empty name', pool({}, ''), /name must be specified/],
    ['a 254-character name', pool({}, 'a'.repeat(254)), /too long by 1 bytes/],
    ['no CIDR', pool({ cidr: '' }), /IPPool CIDR must be specified/],
    ['a malformed CIDR', pool({ cidr: '10.0.0/16' }), /must be a valid subnet/],
    ['a bare address', pool({ cidr: '10.0.0.0' }), /must be a valid subnet/],
    [
      'host bits set',
      pool({ cidr: '10.0.0.1/24' }),
      /10\.0\.0\.1\/24 is not strictly masked \(the network is 10\.0\.0\.0\/24\)/,
    ],
    ['v4 block size 19', pool({ blockSize: 19 }), /IPv4 block size must be between 20 and 32/],
    ['v4 block size 33', pool({ blockSize: 33 }), /IPv4 block size must be between 20 and 32/],
    ['v4 block size 26.5', pool({ blockSize: 26.5 }), /IPv4 block size/],
    [
      'v6 block size 115',
      pool({ cidr: 'fd00::/64', blockSize: 115 }),
      /IPv6 block size must be between 116 and 128/,
    ],
    [
      'v6 block size 129',
      pool({ cidr: 'fd00::/64', blockSize: 129 }),
      /IPv6 block size must be between 116 and 128/,
    ],
    ['a pool smaller than a block', pool({ cidr: '10.0.0.0/27' }), /pool size is too small/],
    ['v4 link-local', pool({ cidr: '169.254.0.0/24' }), /IPv4 Link Local range 169\.254\.0\.0\/16/],
    ['a v4 pool around link-local', pool({ cidr: '169.0.0.0/8' }), /IPv4 Link Local/],
    ['v6 link-local', pool({ cidr: 'fe80::/64' }), /IPv6 Link Local range fe80::\/10/],
    ['a bad nodeSelector', pool({ nodeSelector: 'foo = "bar"' }), /invalid selector.*expected ==/],
    ['a bad namespaceSelector', pool({ namespaceSelector: 'has(' }), /invalid selector/],
    [
      'global() in nodeSelector',
      pool({ nodeSelector: 'global()' }),
      /global\(\) selector is not valid/,
    ],
    [
      'an unknown use',
      pool({ allowedUses: ['Workload', 'Pod' as never] }),
      /unknown allowed use "Pod"/,
    ],
    [
      'LoadBalancer with Workload',
      pool({ allowedUses: ['LoadBalancer', 'Workload'] }),
      /LoadBalancer cannot be combined/,
    ],
    [
      'LoadBalancer with a nodeSelector',
      pool({ allowedUses: ['LoadBalancer'], nodeSelector: 'a == "b"' }),
      /must have nodeSelector set to all\(\)/,
    ],
    [
      'Tunnel with a namespaceSelector',
      pool({ allowedUses: ['Tunnel'], namespaceSelector: 'a == "b"' }),
      /Tunnel cannot have namespaceSelector/,
    ],
    [
      'IPIP and VXLAN together',
      pool({ ipipMode: 'Always', vxlanMode: 'Always' }),
      /cannot both be enabled/,
    ],
    [
      'LoadBalancer with VXLAN',
      pool({ allowedUses: ['LoadBalancer'], vxlanMode: 'CrossSubnet' }),
      /cannot have IPIP or VXLAN/,
    ],
    [
      'an unknown assignment mode',
      pool({ assignmentMode: 'Sometimes' as never }),
      /assignmentMode/,
    ],
    ['a non-boolean disabled', pool({ disabled: 'yes' as never }), /disabled must be a boolean/],
  ])('refuses %s with InvalidArgument', (_what, input, message) => {
    const e = errorOf(() => validatePool(input, []));
    expect(e.code).toBe('InvalidArgument');
    expect(e.message).toMatch(message);
  });

  it('lists every problem at once', () => {
    const e = errorOf(() => validatePool(pool({ blockSize: 40, nodeSelector: '!' }, 'X'), []));
    expect(e.message).toMatch(/lower case.*; IPv4 block size.*; invalid selector/);
  });

  it.each<[string, IPPool]>([
    [
      'a disabled pool smaller than a block (Calico skips that check)',
      pool({ cidr: '10.0.0.0/28', disabled: true }),
    ],
    ['LoadBalancer alone with all()', pool({ allowedUses: ['LoadBalancer'] })],
    [
      'a namespaceSelector on a Workload pool',
      pool({ allowedUses: ['Workload'], namespaceSelector: 'a == "b"' }),
    ],
    ['the largest block sizes', pool({ cidr: '10.0.0.0/32', blockSize: 32 })],
    ['a dotted name', pool({}, 'pool.example-1')],
  ])('accepts %s', (_what, input) => {
    expect(() => validatePool(input, [])).not.toThrow();
  });

  describe('overlap', () => {
    const existing = [
      pool({ cidr: '10.0.0.0/24' }, 'a'),
      pool({ cidr: '10.1.0.0/24', disabled: true }, 'b'),
      pool({ cidr: 'fd00::/64' }, 'c'),
    ];
    it.each([
      ['10.0.0.0/16', 'a'],
      ['10.0.0.0/26', 'a'],
    ])('refuses %s over enabled pool %s with ConfigConflict naming both', (cidr, other) => {
      const e = errorOf(() => validatePool(pool({ cidr, blockSize: 26 }, 'new'), existing));
      expect(e.code).toBe('ConfigConflict');
      expect(e.message).toContain('IPPool(new)');
      expect(e.message).toContain(`IPPool(${other})`);
    });
    it('refuses a disabled new pool over an enabled one', () => {
      const e = errorOf(() =>
        validatePool(pool({ cidr: '10.0.0.0/24', disabled: true }, 'new'), existing),
      );
      expect(e.code).toBe('ConfigConflict');
    });
    it.each([
      ['over a disabled pool', pool({ cidr: '10.1.0.0/24' }, 'new')],
      ['the same pool by name', pool({ cidr: '10.0.0.0/24' }, 'a')],
      ['beside the others', pool({ cidr: '10.2.0.0/24' }, 'new')],
    ])('allows a pool %s', (_what, input) => {
      expect(() => validatePool(input, existing)).not.toThrow();
    });
  });
});

describe('validatePoolUpdate', () => {
  const old = pool({ cidr: '10.0.0.0/16' });
  it.each<[string, IPPool, IPPool, RegExp | undefined]>([
    ['a changed CIDR', old, pool({ cidr: '10.1.0.0/16' }), /CIDR cannot be modified/],
    ['a changed block size', old, pool({ blockSize: 28 }), /BlockSize cannot be modified/],
    ['the default block size written out', old, pool({ blockSize: 26 }), undefined],
    [
      'a canonical rewrite of the CIDR',
      pool({ cidr: 'fd00:0::/64' }),
      pool({ cidr: 'fd00::/64' }),
      undefined,
    ],
    [
      'a non-canonical rewrite',
      pool({ cidr: 'fd00::/64' }),
      pool({ cidr: 'fd00:0::/64' }),
      /CIDR cannot be modified/,
    ],
    ['a selector change', old, pool({ nodeSelector: 'a == "b"', disabled: true }), undefined],
    [
      'LoadBalancer to Workload',
      pool({ allowedUses: ['LoadBalancer'] }),
      pool({ allowedUses: ['Workload'] }),
      /cannot be changed from LoadBalancer/,
    ],
  ])('%s', (_what, before, after, message) => {
    const e = errorOf(() => validatePoolUpdate(before, after));
    if (message === undefined) expect(e.code).toBeUndefined();
    else {
      expect(e.code).toBe('InvalidArgument');
      expect(e.message).toMatch(message);
    }
  });
});
