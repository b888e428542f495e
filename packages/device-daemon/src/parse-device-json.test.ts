import { describe, expect, it } from 'vitest';
import { parseDeviceJson } from './parse-device-json.js';
import { deviceJson, thrown } from './test-fixtures.js';

const good = {
  type: 'bridge',
  bridge: 'pvbr0',
  subnet: '10.0.5.0/24',
  gateway: '10.0.5.1',
  nat: true,
};

describe('parseDeviceJson', () => {
  it('normalises a valid pool', () => {
    const pools = parseDeviceJson(
      deviceJson({
        internal: good,
        lab: { ...good, bridge: 'pvbr1', subnet: '10.0.6.0/24', gateway: '10.0.6.1', nat: 'false' },
      }),
    );
    expect([...pools.keys()]).toEqual(['internal', 'lab']);
    expect(pools.get('internal')).toMatchObject({
      bridge: 'pvbr0',
      ipv4: { subnet: '10.0.5.0/24', gateway: '10.0.5.1', nat: true, cidr: { prefix: 24 } },
      ipv6: undefined,
    });
    expect(pools.get('lab')?.ipv4?.nat).toBe(false);
  });

  it('defaults a missing type to bridge and nat to false', () => {
    const { type: _t, nat: _n, ...rest } = good;
    expect(parseDeviceJson(deviceJson({ p: rest })).get('p')).toMatchObject({
      type: 'bridge',
      ipv4: { nat: false },
    });
  });

  it.each([
    ['{}', 0],
    ['{"network":{}}', 0],
    ['{"network":{"pools":{}}}', 0],
  ])('yields an empty registry for %s', (text, size) => {
    expect(parseDeviceJson(text).size).toBe(size);
  });

  it.each([
    ['not JSON', '{', 'InvalidDeviceJson'],
    ['an array', '[]', 'InvalidDeviceJson'],
    ['network not an object', '{"network":3}', 'InvalidDeviceJson'],
    ['pools an array', '{"network":{"pools":[]}}', 'InvalidDeviceJson'],
  ])('refuses %s', (_why, text, code) => {
    expect(thrown(() => parseDeviceJson(text))).toMatchObject({ code });
  });

  it.each([
    ['macvlan type', { ...good, type: 'macvlan', parent: 'eth0' }, 'UnsupportedPoolType'],
    ['unknown type', { ...good, type: 'vlan' }, 'InvalidPool'],
    ['missing bridge', { ...good, bridge: undefined }, 'InvalidPool'],
    ['bridge name too long', { ...good, bridge: 'abcdefghijklmnop' }, 'InvalidPool'],
    ['bridge name with a space', { ...good, bridge: 'br 0' }, 'InvalidPool'],
    ['bridge name with a slash', { ...good, bridge: 'br/0' }, 'InvalidPool'],
    ['missing subnet', { ...good, subnet: undefined }, 'InvalidPool'],
    ['missing gateway', { ...good, gateway: undefined }, 'InvalidPool'],
    ['host bits set', { ...good, subnet: '10.0.5.77/24' }, 'InvalidPool'],
    ['a non-numeric prefix', { ...good, subnet: '10.0.5.0/abc' }, 'InvalidPool'],
    ['a bare address as subnet', { ...good, subnet: '10.0.5.0' }, 'InvalidPool'],
    ['an IPv6 subnet', { ...good, subnet: 'fd00::/64', gateway: 'fd00::1' }, 'InvalidPool'],
    ['a /31', { ...good, subnet: '10.0.5.0/31', gateway: '10.0.5.1' }, 'InvalidPool'],
    ['a /7', { ...good, subnet: '10.0.0.0/7', gateway: '10.0.0.1' }, 'InvalidPool'],
    ['a gateway outside the subnet', { ...good, gateway: '10.0.0.1' }, 'InvalidPool'],
    ['the network address as gateway', { ...good, gateway: '10.0.5.0' }, 'InvalidPool'],
    ['the broadcast address as gateway', { ...good, gateway: '10.0.5.255' }, 'InvalidPool'],
    ['a malformed gateway', { ...good, gateway: '10.0.5.01' }, 'InvalidPool'],
    ['a non-boolean nat', { ...good, nat: 'yes' }, 'InvalidPool'],
    ['a pool that is not an object', 'bridge', 'InvalidPool'],
  ])('refuses %s', (_why, pool, code) => {
    expect(thrown(() => parseDeviceJson(deviceJson({ p: pool as never })))).toMatchObject({ code });
  });

  // What the message says, and where: each refusal names the field and the problem.
  it.each([
    [
      'a /33',
      { subnet: '10.0.5.0/33' },
      'subnet',
      'prefix /33 of "10.0.5.0/33" is longer than the 32 bits',
    ],
    [
      'a /abc',
      { subnet: '10.0.5.0/abc' },
      'subnet',
      'prefix "/abc" of "10.0.5.0/abc" is not a decimal number',
    ],
    ['an IPv6 subnet', { subnet: 'fd00::/64' }, 'subnet', '"fd00::/64" is an IPv6 CIDR, not IPv4'],
    ['an octet of 256', { subnet: '10.0.256.0/24' }, 'subnet', 'octet 256 is out of range (0-255)'],
    [
      'host bits',
      { subnet: '10.0.5.77/24' },
      'subnet',
      'has host bits set (its network is 10.0.5.0/24)',
    ],
    ['no prefix', { subnet: '10.0.5.0' }, 'subnet', 'has no /prefix'],
    [
      'a three-octet address',
      { subnet: '10.0.5/24' },
      'subnet',
      '4 dot-separated octets, this has 3',
    ],
    ['a leading zero', { gateway: '10.0.5.01' }, 'gateway', 'octet "01" has a leading zero'],
    ['an IPv6 gateway', { gateway: 'fd00::1' }, 'gateway', 'is an IPv6 address, not IPv4'],
    ['a numeric bridge', { bridge: 5 }, 'bridge', 'bridge must be a string, not a number'],
    ['a missing bridge', { bridge: undefined }, 'bridge', 'bridge is required'],
    [
      'a numeric subnet',
      { subnet: 24 },
      'subnet',
      'subnet must be a string (a CIDR such as 10.0.5.0/24), not a number',
    ],
    [
      'a boolean gateway',
      { gateway: true },
      'gateway',
      'gateway must be a string (an IPv4 address), not a boolean',
    ],
    ['a numeric type', { type: 1 }, 'type', 'type must be a string, not a number'],
    ['nat "yes"', { nat: 'yes' }, 'nat', 'nat must be true or false, not "yes"'],
    [
      'loopback space',
      { subnet: '127.0.5.0/24', gateway: '127.0.5.1' },
      'subnet',
      'loopback space',
    ],
    [
      'multicast space',
      { subnet: '224.0.5.0/24', gateway: '224.0.5.1' },
      'subnet',
      'multicast space',
    ],
    [
      'a gateway outside',
      { gateway: '10.0.6.1' },
      'gateway',
      'gateway 10.0.6.1 is outside 10.0.5.0/24',
    ],
    [
      'the broadcast as gateway',
      { gateway: '10.0.5.255' },
      'gateway',
      'the network or broadcast address',
    ],
  ])('says what is wrong with %s, and where', (_why, change, key, text) => {
    const e = thrown(() => parseDeviceJson(deviceJson({ p: { ...good, ...change } as never })));
    expect(e).toMatchObject({ code: 'InvalidPool', field: `network.pools.p.${key}` });
    expect((e as Error).message).toContain(text);
    expect((e as Error).message).not.toContain('no host bits');
  });

  it.each([
    ['empty', ''],
    ['whitespace only', ' \n\t'],
  ])('refuses a device.json that is %s, saying so (never "no pools")', (_why, text) => {
    expect(thrown(() => parseDeviceJson(text))).toMatchObject({
      code: 'InvalidDeviceJson',
      message: 'device.json is empty (a device without pools says so: {"network":{"pools":{}}})',
    });
  });

  it.each([
    [
      'a pool field',
      '{"network":{"pools":{"lan":{"bridge":"pvbr0","subnet":"10.0.3.0/24","gateway":"10.0.3.1","subnet":"10.0.4.0/24"}}}}',
      'device.json: key "subnet" appears twice in network.pools.lan',
      'network.pools.lan.subnet',
    ],
    [
      'a pool',
      '{"network":{"pools":{"lan":{"bridge":"a"},"lan":{"bridge":"pvbr0","subnet":"10.0.3.0/24","gateway":"10.0.3.1"}}}}',
      'device.json: key "lan" appears twice in network.pools',
      'network.pools.lan',
    ],
    [
      'the network block, spelt with an escape',
      '{"network":{"pools":{}},"netw\\u006frk":{}}',
      'device.json: key "network" appears twice at the top level',
      'network',
    ],
  ])('refuses a duplicate key (%s), naming it and its path', (_why, text, message, field) => {
    // JSON.parse alone would keep the last one silently.
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    expect(thrown(() => parseDeviceJson(text))).toMatchObject({
      code: 'InvalidDeviceJson',
      message,
      field,
    });
  });

  it('reports whole-document problems with their field', () => {
    expect(thrown(() => parseDeviceJson('{"network":{"pools":[]}}'))).toMatchObject({
      code: 'InvalidDeviceJson',
      field: 'network.pools',
      message: expect.stringContaining('not an array'),
    });
  });

  it('refuses an invalid pool name', () => {
    expect(thrown(() => parseDeviceJson(deviceJson({ 'bad name': good })))).toMatchObject({
      code: 'InvalidPool',
    });
  });

  it.each([
    ['the same subnet', '10.0.5.0/24', '10.0.5.2', 'pvbr1'],
    ['a containing subnet', '10.0.0.0/16', '10.0.0.1', 'pvbr1'],
    ['a contained subnet', '10.0.5.128/25', '10.0.5.129', 'pvbr1'],
    ['the same bridge', '10.0.6.0/24', '10.0.6.1', 'pvbr0'],
  ])('refuses two pools with %s', (_why, subnet, gateway, bridge) => {
    const other = { ...good, subnet, gateway, bridge };
    expect(thrown(() => parseDeviceJson(deviceJson({ a: good, b: other })))).toMatchObject({
      code: 'PoolConflict',
    });
    expect(parseDeviceJson(deviceJson({ b: other })).size).toBe(1);
  });

  describe('IPv6 pools', () => {
    const six = { bridge: 'pvbr6', subnet6: 'fd00:6::/64', gateway6: 'fd00:6::1' };

    it('reads an IPv6-only pool and a dual-stack pool, canonicalising the addresses', () => {
      const pools = parseDeviceJson(
        deviceJson({
          six: { ...six, subnet6: 'FD00:6:0::/64', gateway6: 'fd00:6:0:0::1', nat6: true },
          dual: { ...good, subnet6: 'fd00:5::/64', gateway6: 'fd00:5::1' },
        }),
      );
      expect(pools.get('six')).toMatchObject({
        ipv4: undefined,
        ipv6: { subnet: 'fd00:6::/64', gateway: 'fd00:6::1', nat: true, cidr: { prefix: 64 } },
      });
      expect(pools.get('dual')).toMatchObject({
        ipv4: { subnet: '10.0.5.0/24', nat: true },
        ipv6: { subnet: 'fd00:5::/64', nat: false },
      });
    });

    it.each([
      ['an IPv4 subnet6', { subnet6: '10.0.6.0/24' }, 'subnet6', 'is an IPv4 CIDR, not IPv6'],
      [
        'a /129',
        { subnet6: 'fd00:6::/129' },
        'subnet6',
        'prefix /129 of "fd00:6::/129" is longer than the 128 bits',
      ],
      [
        'a /48',
        { subnet6: 'fd00:6::/48', gateway6: 'fd00:6::1' },
        'subnet6',
        'prefix /48 is outside /64-/126',
      ],
      [
        'a /127',
        { subnet6: 'fd00:6::/127', gateway6: 'fd00:6::1' },
        'subnet6',
        'prefix /127 is outside /64-/126',
      ],
      [
        'host bits',
        { subnet6: 'fd00:6::5/64' },
        'subnet6',
        'has host bits set (its network is fd00:6::/64)',
      ],
      ['a bad group', { subnet6: 'fd00:6xyz::/64' }, 'subnet6', 'group "6xyz" is not hexadecimal'],
      ['two "::"', { subnet6: 'fd00::6::/64' }, 'subnet6', '"::" may appear only once'],
      ['a zone', { gateway6: 'fd00:6::1%eth0' }, 'gateway6', 'zone index'],
      [
        'link-local space',
        { subnet6: 'fe80::/64', gateway6: 'fe80::1' },
        'subnet6',
        'link-local space',
      ],
      [
        'multicast space',
        { subnet6: 'ff02::/64', gateway6: 'ff02::1' },
        'subnet6',
        'multicast space',
      ],
      [
        'IPv4-mapped space',
        { subnet6: '::ffff:0:0/96', gateway6: '::ffff:0:1' },
        'subnet6',
        'reserved space',
      ],
      [
        'the anycast address as gateway',
        { gateway6: 'fd00:6::' },
        'gateway6',
        'subnet-router anycast',
      ],
      ['a gateway outside', { gateway6: 'fd00:7::1' }, 'gateway6', 'is outside fd00:6::/64'],
      ['an IPv4 gateway6', { gateway6: '10.0.6.1' }, 'gateway6', 'is an IPv4 address, not IPv6'],
      [
        'a missing gateway6',
        { gateway6: undefined },
        'gateway6',
        'gateway6 is required with subnet6',
      ],
      ['a gateway6 alone', { subnet6: undefined }, 'gateway6', 'gateway6 given without subnet6'],
      ['a numeric subnet6', { subnet6: 64 }, 'subnet6', 'subnet6 must be a string'],
      [
        'nat6 without subnet6',
        {
          subnet6: undefined,
          gateway6: undefined,
          subnet: '10.0.6.0/24',
          gateway: '10.0.6.1',
          nat6: true,
        },
        'nat6',
        'no subnet6',
      ],
      ['nat without an IPv4 subnet', { nat: true }, 'nat', 'nat6 is the IPv6 switch'],
      ['a non-boolean nat6', { nat6: 1 }, 'nat6', 'nat6 must be true or false, not a number'],
    ])('refuses %s, saying so', (_why, change, key, text) => {
      const e = thrown(() => parseDeviceJson(deviceJson({ p: { ...six, ...change } as never })));
      expect(e).toMatchObject({ code: 'InvalidPool', field: `network.pools.p.${key}` });
      expect((e as Error).message).toContain(text);
    });

    it('refuses a pool with neither family', () => {
      expect(thrown(() => parseDeviceJson(deviceJson({ p: { bridge: 'pvbr6' } })))).toMatchObject({
        code: 'InvalidPool',
        message: expect.stringContaining(
          'needs subnet and gateway (IPv4), subnet6 and gateway6 (IPv6)',
        ),
      });
    });

    it('refuses overlapping IPv6 subnets, and lets an IPv6 pool share no bridge', () => {
      const other = { bridge: 'pvbr7', subnet6: 'fd00:6::/96', gateway6: 'fd00:6::1' };
      expect(thrown(() => parseDeviceJson(deviceJson({ a: six, b: other })))).toMatchObject({
        code: 'PoolConflict',
        field: 'network.pools.b.subnet6',
      });
      expect(
        thrown(() => parseDeviceJson(deviceJson({ a: six, b: { ...good, bridge: 'pvbr6' } }))),
      ).toMatchObject({ code: 'PoolConflict', field: 'network.pools.b.bridge' });
      // An IPv4 pool and an IPv6 pool never overlap.
      expect(parseDeviceJson(deviceJson({ a: six, b: good })).size).toBe(2);
    });
  });
});
