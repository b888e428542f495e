import { describe, expect, it } from 'vitest';
import type { RawDeviceLease } from './audit-device-leases.js';
import { auditDeviceLeases, parseDeviceLeaseFile } from './audit-device-leases.js';

const lease = (owner: string, address: string, pool = 'p'): RawDeviceLease => ({
  pool,
  owner,
  interface: 'eth0',
  family: 4,
  address,
});

describe('parseDeviceLeaseFile', () => {
  it('reads a version 1 file (IPv4, no family) and a version 2 file', () => {
    const v1 = {
      version: 1,
      pools: [],
      cursors: {},
      leases: [
        {
          pool: 'p',
          owner: 'c',
          interface: 'eth0',
          address: '10.0.0.2',
          mac: 'm',
          kind: 'dynamic',
        },
      ],
    };
    expect(parseDeviceLeaseFile(JSON.stringify(v1))).toEqual([lease('c', '10.0.0.2')]);
    const v2 = { ...v1, version: 2, leases: [{ ...v1.leases[0], family: 6, address: 'fd00::2' }] };
    expect(parseDeviceLeaseFile(JSON.stringify(v2))[0]).toMatchObject({ family: 6 });
  });

  it.each([
    ['{"version":3,"leases":[]}', /not a device lease file/],
    ['{"version":1,"leases":[{"pool":"p"}]}', /without pool, owner/],
    ['{"version":1', /JSON/],
  ])('refuses %s', (text, message) => {
    expect(() => parseDeviceLeaseFile(text)).toThrow(message);
  });
});

describe('auditDeviceLeases', () => {
  const none = new Set<string>();

  it('passes a file that matches the ledger', () => {
    const held = new Map([
      ['a', '10.0.0.2'],
      ['b', '10.0.0.3'],
    ]);
    expect(
      auditDeviceLeases([lease('a', '10.0.0.2'), lease('b', '10.0.0.3')], { held, inDoubt: none }),
    ).toEqual({ leases: 2, duplicates: [], lost: [], unexpected: [] });
  });

  it('finds an address leased twice, even across pools', () => {
    const r = auditDeviceLeases([lease('a', '10.0.0.2'), lease('b', '10.0.0.2', 'q')], {
      held: new Map([
        ['a', '10.0.0.2'],
        ['b', '10.0.0.2'],
      ]),
      inDoubt: none,
    });
    expect(r.duplicates).toEqual(['10.0.0.2: p/a/eth0, q/b/eth0']);
  });

  it('finds an acknowledged lease missing or moved', () => {
    const r = auditDeviceLeases([lease('b', '10.0.0.9')], {
      held: new Map([
        ['a', '10.0.0.2'],
        ['b', '10.0.0.3'],
      ]),
      inDoubt: none,
    });
    expect(r.lost).toEqual([
      'a: told 10.0.0.2, file has nothing',
      'b: told 10.0.0.3, file has 10.0.0.9',
    ]);
  });

  it('finds a lease nobody was told of, but leaves containers in doubt alone', () => {
    const r = auditDeviceLeases([lease('x', '10.0.0.5'), lease('y', '10.0.0.6')], {
      held: new Map([['z', '10.0.0.7']]),
      inDoubt: new Set(['y', 'z']),
    });
    expect(r.unexpected).toEqual(['x: 10.0.0.5']);
    expect(r.lost).toEqual([]);
  });
});
