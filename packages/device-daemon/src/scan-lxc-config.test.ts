import { describe, expect, it } from 'vitest';
import { scanLxcConfig } from './scan-lxc-config.js';
import { ip, thrown } from './test-fixtures.js';

const opts = { container: 'legacy' };

describe('scanLxcConfig', () => {
  it('finds baked addresses, net keys and the namespace keep list', () => {
    const scan = scanLxcConfig(
      [
        '# a comment',
        'lxc.uts.name = legacy',
        'lxc.net.0.type = veth',
        'lxc.net.0.ipv4.address = 10.0.3.2/24 10.0.3.255',
        'lxc.net.1.ipv4.address = auto',
        'lxc.net.2.ipv4.address = DHCP',
        '  lxc.net.3.ipv4.address=10.0.9.9 # trailing comment',
        'lxc.namespace.keep = user net ipc',
        '',
      ].join('\r\n'),
      opts,
    );
    expect(scan.addresses).toEqual([
      { index: 0, family: 4, ip: ip('10.0.3.2'), line: 4 },
      { index: 3, family: 4, ip: ip('10.0.9.9'), line: 7 },
    ]);
    expect(scan.netKeys.map((k) => k.key)).toEqual([
      'lxc.net.0.type',
      'lxc.net.0.ipv4.address',
      'lxc.net.1.ipv4.address',
      'lxc.net.2.ipv4.address',
      'lxc.net.3.ipv4.address',
    ]);
    expect(scan.namespaceKeep).toEqual(['user', 'net', 'ipc']);
  });

  it('finds baked IPv6 addresses beside IPv4 ones', () => {
    const scan = scanLxcConfig(
      [
        'lxc.net.0.ipv4.address = 10.0.3.2/24',
        'lxc.net.0.ipv6.address = fd00:3::2/64',
        'lxc.net.0.ipv6.gateway = fd00:3::1',
        'lxc.net.1.ipv6.address = auto',
      ].join('\n'),
      opts,
    );
    expect(scan.addresses).toEqual([
      { index: 0, family: 4, ip: ip('10.0.3.2'), line: 1 },
      { index: 0, family: 6, ip: ip('fd00:3::2'), line: 2 },
    ]);
  });

  it('counts legacy lxc.network.* keys as network config', () => {
    expect(scanLxcConfig('lxc.network.type = veth', opts).netKeys).toHaveLength(1);
  });

  it('does not take lxc.namespace.keep = net for network config', () => {
    expect(scanLxcConfig('lxc.namespace.keep = net', opts).netKeys).toEqual([]);
  });

  it.each([
    ['a line without "="', 'lxc.net.0.type veth'],
    ['a key outside lxc.*', 'foo = bar'],
    ['a key with a space', 'lxc.net 0 = x'],
    ['a malformed address', 'lxc.net.0.ipv4.address = 10.0.3'],
    ['an IPv6 address', 'lxc.net.0.ipv4.address = fd00::1'],
    ['a bad prefix', 'lxc.net.0.ipv4.address = 10.0.3.2/40'],
    ['an IPv4 address as ipv6.address', 'lxc.net.0.ipv6.address = 10.0.3.2'],
    ['a malformed IPv6 address', 'lxc.net.0.ipv6.address = fd00:::1/64'],
  ])('refuses %s with InvalidLxcConfig', (_why, text) => {
    expect(thrown(() => scanLxcConfig(text, opts))).toMatchObject({ code: 'InvalidLxcConfig' });
  });
});
