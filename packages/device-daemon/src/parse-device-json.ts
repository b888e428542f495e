import { DeviceError } from './device-error.js';
import {
  broadcastOf,
  formatIpv4,
  formatIpv4Subnet,
  parseIpv4,
  parseIpv4Subnet,
  subnetContains,
  subnetsOverlap,
} from './ipv4.js';
import type { Pool, PoolRegistry } from './pool.js';
import { isValidName } from './validate-name.js';

/** Smallest and largest accepted pool prefixes: a /30 leaves one container address. */
export const MIN_POOL_PREFIX = 8;
/** See {@link MIN_POOL_PREFIX}. */
export const MAX_POOL_PREFIX = 30;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses device.json text into the revision's pool registry. Throws `InvalidDeviceJson`,
 * `InvalidPool`, `UnsupportedPoolType` or `PoolConflict`; a device.json without
 * `network.pools` yields an empty registry.
 */
export function parseDeviceJson(text: string): PoolRegistry {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new DeviceError('InvalidDeviceJson', `device.json is not valid JSON: ${String(e)}`);
  }
  if (!isObject(doc)) throw new DeviceError('InvalidDeviceJson', 'device.json must be an object');
  const network = doc['network'];
  if (network === undefined) return new Map();
  if (!isObject(network)) {
    throw new DeviceError('InvalidDeviceJson', 'device.json "network" must be an object');
  }
  if (network['pools'] === undefined) return new Map();
  return parsePools(network['pools']);
}

/** Validates and normalises a `network.pools` value (see {@link parseDeviceJson}). */
export function parsePools(value: unknown): PoolRegistry {
  if (!isObject(value)) {
    throw new DeviceError('InvalidDeviceJson', 'device.json "network.pools" must be an object');
  }
  const pools = new Map<string, Pool>();
  for (const [name, raw] of Object.entries(value)) {
    const pool = parsePool(name, raw);
    for (const other of pools.values()) {
      if (subnetsOverlap(other.cidr, pool.cidr)) {
        throw new DeviceError(
          'PoolConflict',
          `pool '${name}' subnet ${pool.subnet} overlaps pool '${other.name}' subnet ${other.subnet}`,
        );
      }
      if (other.bridge === pool.bridge) {
        throw new DeviceError(
          'PoolConflict',
          `pools '${other.name}' and '${name}' both use bridge ${pool.bridge}`,
        );
      }
    }
    pools.set(name, pool);
  }
  return pools;
}

/** Validates one pool definition; `name` is its key in `network.pools`. */
export function parsePool(name: string, raw: unknown): Pool {
  const fail = (why: string): never => {
    throw new DeviceError('InvalidPool', `pool '${name}': ${why}`);
  };
  if (!isValidName('pool', name)) fail('invalid pool name');
  if (!isObject(raw)) return fail('definition must be an object');
  const type = raw['type'] ?? 'bridge';
  if (type === 'macvlan') {
    throw new DeviceError(
      'UnsupportedPoolType',
      `pool '${name}': type "macvlan" is reserved for future use; use "bridge"`,
    );
  }
  if (type !== 'bridge') fail(`unknown type ${JSON.stringify(type)} (supported: "bridge")`);
  const bridge = raw['bridge'];
  if (typeof bridge !== 'string' || bridge === '') return fail('bridge name is required');
  if (!isValidName('interface', bridge)) {
    fail(`invalid bridge name ${JSON.stringify(bridge)} (1-15 of A-Z a-z 0-9 _ . -)`);
  }
  const subnetText = raw['subnet'];
  const gatewayText = raw['gateway'];
  if (typeof subnetText !== 'string') return fail('subnet is required (a CIDR string)');
  if (typeof gatewayText !== 'string') return fail('gateway is required (an IPv4 address)');
  const cidr = parseIpv4Subnet(subnetText);
  if (cidr === undefined) {
    return fail(`subnet ${JSON.stringify(subnetText)} is not a strict IPv4 CIDR (no host bits)`);
  }
  if (cidr.prefix < MIN_POOL_PREFIX || cidr.prefix > MAX_POOL_PREFIX) {
    fail(`subnet prefix /${cidr.prefix} is outside /${MIN_POOL_PREFIX}-/${MAX_POOL_PREFIX}`);
  }
  const gatewayIp = parseIpv4(gatewayText);
  if (gatewayIp === undefined) return fail(`gateway ${JSON.stringify(gatewayText)} is not IPv4`);
  if (!subnetContains(cidr, gatewayIp)) fail(`gateway ${gatewayText} is outside ${subnetText}`);
  if (gatewayIp === cidr.base || gatewayIp === broadcastOf(cidr)) {
    fail(`gateway ${gatewayText} is the network or broadcast address of ${subnetText}`);
  }
  const natRaw = raw['nat'] ?? false;
  // Pantavisor reads nat as a string; accept its spellings as well as JSON booleans.
  const nat = natRaw === true || natRaw === 'true';
  if (!nat && natRaw !== false && natRaw !== 'false') fail('nat must be true or false');
  return {
    name,
    type: 'bridge',
    bridge,
    subnet: formatIpv4Subnet(cidr),
    gateway: formatIpv4(gatewayIp),
    nat,
    cidr,
    gatewayIp,
  };
}
