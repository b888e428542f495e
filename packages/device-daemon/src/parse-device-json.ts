import type { Cidr } from '@netledger/accounting';
import type { IpFamily } from './address.js';
import {
  formatAddress,
  formatSubnet,
  isHostAddress,
  subnetContains,
  subnetsOverlap,
} from './address.js';
import { DeviceError, fieldPath } from './device-error.js';
import { findDuplicateKey } from './find-duplicate-key.js';
import { describeJsonType, isObject } from './json-value.js';
import { parseAddress, parseSubnet } from './parse-address.js';
import type { Pool, PoolFamily, PoolRegistry } from './pool.js';
import { familiesOf } from './pool.js';
import { isValidName } from './validate-name.js';

/**
 * Accepted pool prefixes per family. IPv4: /8 to /30 (a /30 leaves one container address). IPv6:
 * /64 (one link's worth) to /126 (two container addresses).
 */
const POOL_PREFIX: Record<IpFamily, { readonly min: number; readonly max: number }> = {
  4: { min: 8, max: 30 },
  6: { min: 64, max: 126 },
};

// Address space that is never a pool: the kernel or the protocol owns it.
const SPECIAL: readonly {
  readonly cidr: string;
  readonly family: IpFamily;
  readonly what: string;
}[] = [
  { cidr: '0.0.0.0/8', family: 4, what: '"this network" space (0.0.0.0/8)' },
  { cidr: '127.0.0.0/8', family: 4, what: 'loopback space (127.0.0.0/8)' },
  { cidr: '224.0.0.0/4', family: 4, what: 'multicast space (224.0.0.0/4)' },
  { cidr: '240.0.0.0/4', family: 4, what: 'reserved space (240.0.0.0/4)' },
  { cidr: '::/8', family: 6, what: 'reserved space (::/8: unspecified, loopback, IPv4-mapped)' },
  { cidr: 'fe80::/10', family: 6, what: 'link-local space (fe80::/10)' },
  { cidr: 'ff00::/8', family: 6, what: 'multicast space (ff00::/8)' },
];
const SPECIAL_CIDRS = SPECIAL.map((s) => {
  const parsed = parseSubnet(s.cidr, s.family);
  if (!parsed.ok) throw new Error(`bad built-in range ${s.cidr}`);
  return { cidr: parsed.value, what: s.what };
});

const KEYS: Record<IpFamily, { subnet: string; gateway: string; nat: string }> = {
  4: { subnet: 'subnet', gateway: 'gateway', nat: 'nat' },
  6: { subnet: 'subnet6', gateway: 'gateway6', nat: 'nat6' },
};

/**
 * Reads the raw `network.pools` object of a device.json text (`{}` when it has none). Throws
 * `InvalidDeviceJson` when the text is empty, is not JSON, repeats a key in one object (JSON.parse
 * would silently keep the last), or `network` / `network.pools` have the wrong shape.
 */
export function readPoolDefinitions(text: string): Readonly<Record<string, unknown>> {
  if (text.trim() === '') {
    throw new DeviceError(
      'InvalidDeviceJson',
      'device.json is empty (a device without pools says so: {"network":{"pools":{}}})',
    );
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new DeviceError(
      'InvalidDeviceJson',
      `device.json is not valid JSON: ${(e as Error).message}`,
    );
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) {
    const where =
      duplicate.path.length === 0 ? 'at the top level' : `in ${fieldPath(...duplicate.path)}`;
    throw new DeviceError(
      'InvalidDeviceJson',
      `device.json: key ${JSON.stringify(duplicate.key)} appears twice ${where}`,
      { field: fieldPath(...duplicate.path, duplicate.key) },
    );
  }
  if (!isObject(doc))
    throw new DeviceError(
      'InvalidDeviceJson',
      `device.json must be an object, not ${describeJsonType(doc)}`,
    );
  const network = doc['network'];
  if (network === undefined) return {};
  if (!isObject(network)) {
    throw new DeviceError(
      'InvalidDeviceJson',
      `device.json "network" must be an object, not ${describeJsonType(network)}`,
      {
        field: 'network',
      },
    );
  }
  const pools = network['pools'];
  if (pools === undefined) return {};
  if (!isObject(pools)) {
    throw new DeviceError(
      'InvalidDeviceJson',
      `device.json "network.pools" must be an object keyed by pool name, not ${describeJsonType(pools)}`,
      {
        field: 'network.pools',
      },
    );
  }
  return pools;
}

/**
 * Parses device.json text into the revision's pool registry. Throws `InvalidDeviceJson`,
 * `InvalidPool`, `UnsupportedPoolType` or `PoolConflict`, each with the offending `field`; a
 * device.json without `network.pools` yields an empty registry.
 */
export function parseDeviceJson(text: string): PoolRegistry {
  const definitions = readPoolDefinitions(text);
  const pools = new Map<string, Pool>();
  for (const [name, raw] of Object.entries(definitions)) {
    const pool = parsePool(name, raw);
    for (const other of pools.values()) {
      const conflict = poolConflict(other, pool);
      if (conflict !== undefined) throw conflict;
    }
    pools.set(name, pool);
  }
  return pools;
}

/**
 * Why two individually valid pools cannot live together (`PoolConflict`, on the second one's
 * field): overlapping subnets of a family, or one bridge. `undefined` when they can.
 */
export function poolConflict(first: Pool, second: Pool): DeviceError | undefined {
  for (const side of familiesOf(second)) {
    const mine = side.family === 4 ? first.ipv4 : first.ipv6;
    if (mine !== undefined && subnetsOverlap(mine.cidr, side.cidr)) {
      return new DeviceError(
        'PoolConflict',
        `pool '${second.name}' ${KEYS[side.family].subnet} ${side.subnet} overlaps pool '${first.name}' ${KEYS[side.family].subnet} ${mine.subnet}`,
        { field: fieldPath('network', 'pools', second.name, KEYS[side.family].subnet) },
      );
    }
  }
  if (first.bridge === second.bridge) {
    return new DeviceError(
      'PoolConflict',
      `pools '${first.name}' and '${second.name}' both use bridge ${second.bridge}`,
      {
        field: fieldPath('network', 'pools', second.name, 'bridge'),
      },
    );
  }
  return undefined;
}

/**
 * Validates one pool definition; `name` is its key in `network.pools`. Throws `InvalidPool` (or
 * `UnsupportedPoolType`) saying what is wrong, with the offending field.
 */
export function parsePool(name: string, raw: unknown): Pool {
  const fail = (why: string, key?: string): never => {
    throw new DeviceError('InvalidPool', `pool '${name}': ${why}`, {
      field:
        key === undefined
          ? fieldPath('network', 'pools', name)
          : fieldPath('network', 'pools', name, key),
    });
  };
  if (!isValidName('pool', name))
    fail('invalid pool name (1-63 of A-Z a-z 0-9 _ . -, not starting with _ . -)');
  if (!isObject(raw)) return fail(`definition must be an object, not ${describeJsonType(raw)}`);
  const type = raw['type'] ?? 'bridge';
  if (typeof type !== 'string')
    return fail(`type must be a string, not ${describeJsonType(type)}`, 'type');
  if (type === 'macvlan') {
    throw new DeviceError(
      'UnsupportedPoolType',
      `pool '${name}': type "macvlan" is reserved for future use; use "bridge"`,
      {
        field: fieldPath('network', 'pools', name, 'type'),
      },
    );
  }
  if (type !== 'bridge') fail(`unknown type ${JSON.stringify(type)} (supported: "bridge")`, 'type');
  const bridge = raw['bridge'];
  if (bridge === undefined) return fail('bridge is required (the host bridge name)', 'bridge');
  if (typeof bridge !== 'string')
    return fail(`bridge must be a string, not ${describeJsonType(bridge)}`, 'bridge');
  if (!isValidName('interface', bridge)) {
    fail(`invalid bridge name ${JSON.stringify(bridge)} (1-15 of A-Z a-z 0-9 _ . -)`, 'bridge');
  }
  const ipv4 = parseFamily(raw, 4, fail);
  const ipv6 = parseFamily(raw, 6, fail);
  if (ipv4 === undefined && ipv6 === undefined) {
    fail('needs subnet and gateway (IPv4), subnet6 and gateway6 (IPv6), or both', 'subnet');
  }
  return { name, type: 'bridge', bridge, ipv4, ipv6 };
}

function parseFamily(
  raw: Readonly<Record<string, unknown>>,
  family: IpFamily,
  fail: (why: string, key?: string) => never,
): PoolFamily | undefined {
  const keys = KEYS[family];
  const subnetRaw = raw[keys.subnet];
  const gatewayRaw = raw[keys.gateway];
  const nat = parseNat(raw[keys.nat], keys.nat, fail);
  if (subnetRaw === undefined) {
    if (gatewayRaw !== undefined)
      fail(`${keys.gateway} given without ${keys.subnet}`, keys.gateway);
    if (nat) {
      fail(
        family === 4
          ? 'nat masquerades the IPv4 subnet, and this pool has none (nat6 is the IPv6 switch)'
          : 'nat6 masquerades the IPv6 subnet, and this pool has no subnet6',
        keys.nat,
      );
    }
    return undefined;
  }
  const example = family === 4 ? '10.0.5.0/24' : 'fd00:5::/64';
  if (typeof subnetRaw !== 'string')
    return fail(
      `${keys.subnet} must be a string (a CIDR such as ${example}), not ${describeJsonType(subnetRaw)}`,
      keys.subnet,
    );
  if (gatewayRaw === undefined)
    return fail(`${keys.gateway} is required with ${keys.subnet}`, keys.gateway);
  if (typeof gatewayRaw !== 'string')
    return fail(
      `${keys.gateway} must be a string (an IPv${family} address), not ${describeJsonType(gatewayRaw)}`,
      keys.gateway,
    );
  const subnet = parseSubnet(subnetRaw, family);
  if (!subnet.ok) return fail(`${keys.subnet}: ${subnet.why}`, keys.subnet);
  const cidr = subnet.value;
  const { min, max } = POOL_PREFIX[family];
  if (cidr.prefix < min || cidr.prefix > max) {
    fail(
      `${keys.subnet} ${formatSubnet(cidr)}: prefix /${cidr.prefix} is outside /${min}-/${max}`,
      keys.subnet,
    );
  }
  const special = SPECIAL_CIDRS.find((s) => subnetsOverlap(s.cidr, cidr));
  if (special !== undefined)
    fail(`${keys.subnet} ${formatSubnet(cidr)} lies in ${special.what}`, keys.subnet);
  const gateway = parseAddress(gatewayRaw, family);
  if (!gateway.ok) return fail(`${keys.gateway}: ${gateway.why}`, keys.gateway);
  checkGateway(cidr, { ip: gateway.value, key: keys.gateway, text: gatewayRaw }, fail);
  return {
    family,
    subnet: formatSubnet(cidr),
    gateway: formatAddress(family, gateway.value),
    cidr,
    gatewayIp: gateway.value,
    nat,
  };
}

function checkGateway(
  cidr: Cidr,
  at: { readonly ip: bigint; readonly key: string; readonly text: string },
  fail: (why: string, key?: string) => never,
): void {
  const { ip } = at;
  const subnet = formatSubnet(cidr);
  if (!subnetContains(cidr, ip)) fail(`${at.key} ${at.text} is outside ${subnet}`, at.key);
  if (!isHostAddress(cidr, ip)) {
    const what =
      cidr.version === 4 ? 'the network or broadcast address' : 'the subnet-router anycast address';
    fail(`${at.key} ${at.text} is ${what} of ${subnet}`, at.key);
  }
}

// Pantavisor reads nat as a string; accept its spellings as well as JSON booleans.
function parseNat(
  value: unknown,
  key: string,
  fail: (why: string, key?: string) => never,
): boolean {
  if (value === undefined || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  return fail(
    `${key} must be true or false, not ${typeof value === 'string' ? JSON.stringify(value) : describeJsonType(value)}`,
    key,
  );
}
