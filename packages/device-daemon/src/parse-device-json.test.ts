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
      subnet: '10.0.5.0/24',
      gateway: '10.0.5.1',
      nat: true,
      cidr: { prefix: 24 },
    });
    expect(pools.get('lab')?.nat).toBe(false);
  });

  it('defaults a missing type to bridge and nat to false', () => {
    const { type: _t, nat: _n, ...rest } = good;
    expect(parseDeviceJson(deviceJson({ p: rest })).get('p')).toMatchObject({
      type: 'bridge',
      nat: false,
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
});
