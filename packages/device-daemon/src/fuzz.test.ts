// Fuzz: malformed device.json, run.json and lxc configs never crash the daemon, always come back
// as a DeviceError with a code and a plain message, and leave no lease and no host change behind.
// 10,000 cases each for device.json, run.json and lxc configs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDeviceDaemon } from './device-daemon.js';
import type { DeviceErrorCode } from './device-error.js';
import { DeviceError } from './device-error.js';
import { deviceJson } from './test-fixtures.js';
import { fakeDeps } from './test-fakes.js';

const DEVICE_CODES: DeviceErrorCode[] = [
  'InvalidDeviceJson',
  'InvalidPool',
  'UnsupportedPoolType',
  'PoolConflict',
];
const START_CODES: DeviceErrorCode[] = [
  'InvalidRunJson',
  'InvalidLxcConfig',
  'UnknownPool',
  'BakedLxcNet',
  'StaticOutsideSubnet',
  'StaticNotHostAddress',
  'StaticInUse',
  'PoolExhausted',
];

const junk = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);
const ipish = fc.oneof(
  fc.constantFrom(
    '10.0.5.1',
    '10.0.5.0',
    '10.0.5.255',
    '10.0.5.50',
    '10.0.6.1',
    '10.0.5.01',
    '256.1.1.1',
    'fd00::1',
    '',
  ),
  fc.tuple(fc.nat(300), fc.nat(300), fc.nat(300), fc.nat(300)).map((o) => o.join('.')),
  fc.string({ maxLength: 16 }),
);
const cidrish = fc.oneof(
  fc.constantFrom(
    '10.0.5.0/24',
    '10.0.5.7/24',
    '10.0.5.0/abc',
    '10.0.5.0/33',
    '10.0.5.0',
    '10.0.0.0/16',
    'fd00::/64',
    '10.0.5.0/31',
  ),
  fc.tuple(ipish, fc.integer({ min: -1, max: 40 })).map(([ip, p]) => `${ip}/${p}`),
);
const ip6ish = fc.oneof(
  fc.constantFrom(
    'fd00:5::1',
    'fd00:5::',
    'fd00:5::ffff',
    'fd00:6::1',
    'fe80::1',
    '10.0.5.1',
    'fd00:::1',
    '',
  ),
  fc.string({ maxLength: 16 }),
);
const cidr6ish = fc.oneof(
  fc.constantFrom(
    'fd00:5::/64',
    'fd00:5::5/64',
    'fd00:5::/129',
    'fd00:5::/48',
    'ff02::/64',
    '10.0.5.0/24',
    'fd00:5::/126',
  ),
  fc.tuple(ip6ish, fc.integer({ min: -1, max: 130 })).map(([ip, p]) => `${ip}/${p}`),
);
const field = <T>(good: fc.Arbitrary<T>) => fc.option(fc.oneof(good, junk), { nil: undefined });
const poolArb = fc.record(
  {
    type: field(fc.constantFrom('bridge', 'macvlan', 'vlan')),
    bridge: field(fc.constantFrom('pvbr0', 'pvbr1', 'a-very-long-bridge-name', 'br 0', '')),
    subnet: field(cidrish),
    gateway: field(ipish),
    nat: field(fc.constantFrom(true, false, 'true', 'yes')),
    subnet6: field(cidr6ish),
    gateway6: field(ip6ish),
    nat6: field(fc.constantFrom(true, false, 'false', 1)),
  },
  { requiredKeys: [] },
);
const deviceText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.json({ maxDepth: 3 }),
  fc
    .dictionary(fc.constantFrom('internal', 'lab', 'bad name', ''), fc.oneof(poolArb, junk), {
      maxKeys: 3,
    })
    .map((p) => deviceJson(p as never)),
  fc.constantFrom('{"network":[]}', '{"network":{"pools":null}}', '[]', 'null'),
  // Individually valid pools that may overlap or share a bridge.
  fc
    .uniqueArray(
      fc.constantFrom(
        { bridge: 'pvbr0', subnet: '10.0.5.0/24', gateway: '10.0.5.1' },
        { bridge: 'pvbr1', subnet: '10.0.5.128/25', gateway: '10.0.5.129' },
        { bridge: 'pvbr0', subnet: '10.0.6.0/24', gateway: '10.0.6.1' },
        { bridge: 'pvbr2', subnet: '10.0.0.0/16', gateway: '10.0.0.1' },
      ),
      { minLength: 2, maxLength: 3 },
    )
    .map((list) => deviceJson(Object.fromEntries(list.map((p, i) => [`p${i}`, p])))),
);
const networkArb = fc.record(
  {
    mode: field(fc.constantFrom('pool', 'host', 'none', 'bridge')),
    pool: field(fc.constantFrom('internal', 'missing', 'bad name')),
    hostname: field(fc.constantFrom('ok', '-bad-', 'a'.repeat(70))),
    ip: field(ipish),
    mac: field(
      fc.constantFrom('02:00:00:00:00:09', '01:00:5e:00:00:01', 'zz', '02-00-00-00-00-0A'),
    ),
    interfaces: field(
      fc.array(
        fc.oneof(
          junk,
          fc.record(
            {
              name: field(fc.constantFrom('eth0', 'eth1', 'eth0:1', '')),
              pool: field(fc.constantFrom('internal', 'nope')),
              ipv4_address: field(ipish),
              ipv6_address: field(ip6ish),
            },
            { requiredKeys: [] },
          ),
        ),
        { maxLength: 3 },
      ),
    ),
  },
  { requiredKeys: [] },
);
const nearValidNetwork = fc.record(
  {
    pool: fc.constantFrom('internal', 'missing'),
    ip: fc.constantFrom(
      '10.0.5.1',
      '10.0.5.0',
      '10.0.5.255',
      '10.0.5.50',
      '10.0.6.1',
      '10.0.5.50/16',
    ),
  },
  { requiredKeys: ['pool'] },
);
const runText = fc.oneof(
  nearValidNetwork.map((network) => JSON.stringify({ network })),
  fc.string({ maxLength: 40 }),
  fc.json({ maxDepth: 3 }),
  fc.oneof(networkArb, junk).map((network) => JSON.stringify({ network })),
);
const lxcLine = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    'lxc.net.0.type = veth',
    'lxc.namespace.keep = net',
    '# comment',
    '',
    'lxc.network.type = empty',
    'no equals sign',
  ),
  ipish.map((ip) => `lxc.net.0.ipv4.address = ${ip}`),
  ip6ish.map((ip) => `lxc.net.0.ipv6.address = ${ip}`),
);
const lxcText = fc.array(lxcLine, { maxLength: 6 }).map((lines) => lines.join('\n'));

const POOLS = {
  internal: {
    type: 'bridge',
    bridge: 'pvbr0',
    subnet: '10.0.5.0/24',
    gateway: '10.0.5.1',
    nat: true,
    subnet6: 'fd00:5::/64',
    gateway6: 'fd00:5::1',
  },
};

const seen = new Map<string, number>();

function expectDeviceError(e: unknown, codes: DeviceErrorCode[]): void {
  expect(e).toBeInstanceOf(DeviceError);
  const code = (e as DeviceError).code;
  seen.set(code, (seen.get(code) ?? 0) + 1);
  expect(codes).toContain((e as DeviceError).code);
  expect((e as DeviceError).message.length).toBeGreaterThan(0);
  expect((e as DeviceError).message).not.toMatch(ENGINE_ERROR);
}

const RUNS = 10_000;
/** A guard against a runaway case, not a speed target: 10,000 cases took 38 s on a loaded runner. */
const FUZZ_TIMEOUT_MS = 300_000;
const ENGINE_ERROR =
  /Cannot read properties|is not a function|is not iterable|is not defined|Cannot convert|Invalid array length|Maximum call stack|Cannot mix BigInt|\n\s+at /;

describe('fuzz', () => {
  it(
    `malformed device.json: a coded error and no host change, or a valid revision (${RUNS} cases)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(deviceText, async (text) => {
          const f = fakeDeps();
          const d = createDeviceDaemon(f.deps);
          await d.init();
          try {
            await d.apply({ deviceJson: text, containers: [] });
          } catch (e) {
            expectDeviceError(e, DEVICE_CODES);
            expect(f.host).toEqual([]);
            expect(f.natCalls).toEqual([]);
            expect(f.store.saves).toBe(0);
            // Specific messages: a pool's problem names its field, and the old catch-all is gone.
            const err = e as DeviceError;
            if (err.code !== 'InvalidDeviceJson') expect(err.field).toMatch(/^network\.pools/);
            expect(err.message).not.toContain('no host bits');
            // Logged once, in the one error shape.
            const logged = f.logger.lines.filter((l) => l.msg.startsWith('revision refused'));
            expect(logged).toHaveLength(1);
            expect(logged[0]?.fields?.['error']).toMatchObject({
              code: err.code,
              message: err.message,
            });
          }
        }),
        { numRuns: RUNS },
      );
      // The generators must actually reach the error paths, not just valid input.
      for (const code of DEVICE_CODES) expect(seen.get(code) ?? 0).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );

  const startRefusesCleanly = async (runJson: string, lxcConfig: string | undefined) => {
    const f = fakeDeps();
    const d = createDeviceDaemon(f.deps);
    await d.init();
    await d.apply({
      deviceJson: deviceJson(POOLS),
      containers: [{ name: 'c', runJson, lxcConfig }],
    });
    const host = [...f.host];
    const before = d.leases().filter((l) => l.owner === 'c');
    expect(before).toEqual([]);
    const saves = f.store.saves;
    try {
      await d.start('c');
    } catch (e) {
      expectDeviceError(e, START_CODES);
      expect(d.leases().filter((l) => l.owner === 'c')).toEqual([]);
      expect(f.store.saves).toBe(saves);
    }
    expect(f.host).toEqual(host);
  };

  it(
    `malformed run.json: a refused start leaves no lease and no host change (${RUNS} cases)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(runText, fc.option(lxcText, { nil: undefined }), startRefusesCleanly),
        { numRuns: RUNS },
      );
      for (const code of START_CODES.filter(
        (c) => !['PoolExhausted', 'InvalidLxcConfig', 'BakedLxcNet'].includes(c),
      ))
        expect(seen.get(code) ?? 0).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    `malformed lxc configs: a refused start leaves no lease and no host change (${RUNS} cases)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constant('{"network":{"pool":"internal"}}'),
          lxcText,
          startRefusesCleanly,
        ),
        { numRuns: RUNS },
      );
      for (const code of ['InvalidLxcConfig', 'BakedLxcNet'] as const)
        expect(seen.get(code) ?? 0).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );
});
