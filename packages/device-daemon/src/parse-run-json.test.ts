import { describe, expect, it } from 'vitest';
import { parseNetworkBlock, parseRunJson } from './parse-run-json.js';
import { ip, thrown } from './test-fixtures.js';

const opts = { container: 'c1' };

describe('parseRunJson', () => {
  it('gives mode none when there is no network block', () => {
    expect(parseRunJson('{"name":"c1"}', opts)).toMatchObject({ mode: 'none', interfaces: [] });
  });

  it('reads the minimal pool form as one eth0 interface', () => {
    const n = parseNetworkBlock({ mode: 'pool', pool: 'internal', hostname: 'my-container' }, opts);
    expect(n).toMatchObject({ mode: 'pool', hostname: 'my-container' });
    expect(n.interfaces).toEqual([
      { name: 'eth0', pool: 'internal', static4: undefined, static6: undefined, mac: undefined },
    ]);
  });

  it('reads a pool key without mode as pool mode (as Pantavisor does)', () => {
    expect(parseNetworkBlock({ pool: 'internal' }, opts).mode).toBe('pool');
  });

  it('reads the flat ip/mac keys emitted by the image templates', () => {
    const n = parseNetworkBlock({ pool: 'p', ip: '10.0.5.50', mac: '02:AA:bb:cc:dd:ee' }, opts);
    expect(n.interfaces[0]).toMatchObject({
      static4: { family: 4, ip: ip('10.0.5.50'), prefix: undefined },
      mac: '02:aa:bb:cc:dd:ee',
    });
  });

  it('reads interfaces[] with per-interface pools and defaults', () => {
    const n = parseNetworkBlock(
      { mode: 'pool', pool: 'a', interfaces: [{ ipv4_address: '10.0.5.9/24' }, { pool: 'b' }] },
      opts,
    );
    expect(n.interfaces.map((i) => [i.name, i.pool, i.static4?.prefix])).toEqual([
      ['eth0', 'a', 24],
      ['eth1', 'b', undefined],
    ]);
  });

  it('reads a static IPv6 address per interface', () => {
    const n = parseNetworkBlock(
      { pool: 'p', interfaces: [{ ipv4_address: '10.0.5.9', ipv6_address: 'fd00:5::9/64' }] },
      opts,
    );
    expect(n.interfaces[0]).toMatchObject({
      static4: { family: 4, ip: ip('10.0.5.9') },
      static6: { family: 6, ip: ip('fd00:5::9'), prefix: 64 },
    });
  });

  it.each([
    ['a numeric pool', '{"network":{"pool":5}}', 'pool must be a string, not a number'],
    ['a numeric mode', '{"network":{"mode":1}}', 'mode must be a string'],
    [
      'an object hostname',
      '{"network":{"pool":"p","hostname":{}}}',
      'hostname must be a string, not an object',
    ],
    [
      'an IPv4 ipv6_address',
      '{"network":{"pool":"p","interfaces":[{"ipv6_address":"10.0.5.9"}]}}',
      'is an IPv4 address, not IPv6',
    ],
    ['an octet of 256', '{"network":{"pool":"p","ip":"10.0.5.256"}}', 'octet 256 is out of range'],
  ])('says what is wrong with %s', (_why, text, message) => {
    expect(thrown(() => parseRunJson(text, opts))).toMatchObject({
      code: 'InvalidRunJson',
      message: expect.stringContaining(message),
    });
  });

  it.each([
    ['host', { mode: 'host' }],
    ['none', { mode: 'none' }],
  ])('keeps mode %s without interfaces', (mode, block) => {
    expect(parseNetworkBlock(block, opts)).toMatchObject({ mode, interfaces: [] });
  });

  it.each([
    ['not JSON', 'nope'],
    ['not an object', '"x"'],
    ['a network that is a string', '{"network":"pool"}'],
    ['an unknown mode', '{"network":{"mode":"bridge","pool":"p"}}'],
    ['host mode with a pool', '{"network":{"mode":"host","pool":"p"}}'],
    ['pool mode without a pool', '{"network":{"mode":"pool"}}'],
    ['a non-string pool', '{"network":{"pool":5}}'],
    ['an empty pool', '{"network":{"pool":""}}'],
    ['an invalid pool name', '{"network":{"pool":"a b"}}'],
    ['an invalid hostname', '{"network":{"pool":"p","hostname":"-x-"}}'],
    ['interfaces not an array', '{"network":{"pool":"p","interfaces":{}}}'],
    ['an interface that is not an object', '{"network":{"pool":"p","interfaces":[1]}}'],
    [
      'a duplicate interface',
      '{"network":{"pool":"p","interfaces":[{"name":"eth0"},{"name":"eth0"}]}}',
    ],
    ['an invalid interface name', '{"network":{"pool":"p","interfaces":[{"name":"eth0:1"}]}}'],
    ['a malformed static IP', '{"network":{"pool":"p","ip":"10.0.5"}}'],
    ['an IPv6 static IP', '{"network":{"pool":"p","ip":"fd00::5"}}'],
    ['a bad static prefix', '{"network":{"pool":"p","ip":"10.0.5.5/33"}}'],
    [
      'a bad static IPv6 prefix',
      '{"network":{"pool":"p","interfaces":[{"ipv6_address":"fd00::5/129"}]}}',
    ],
    ['a malformed MAC', '{"network":{"pool":"p","mac":"02:00:zz:00:00:01"}}'],
    ['a multicast MAC', '{"network":{"pool":"p","mac":"01:00:5e:00:00:01"}}'],
    [
      'flat ip contradicting interfaces[0]',
      '{"network":{"pool":"p","ip":"10.0.5.5","interfaces":[{"ipv4_address":"10.0.5.6"}]}}',
    ],
  ])('refuses %s with InvalidRunJson', (_why, text) => {
    expect(thrown(() => parseRunJson(text, opts))).toMatchObject({ code: 'InvalidRunJson' });
  });
});
