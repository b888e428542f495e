import type { ContainerNetwork, InterfaceSpec, StaticAddress } from './container-network.js';
import { NO_NETWORK } from './container-network.js';
import { DeviceError } from './device-error.js';
import type { IpFamily } from './address.js';
import { describeJsonType, isObject } from './json-value.js';
import { parseAddressWithPrefix } from './parse-address.js';
import { isValidName, normaliseMac } from './validate-name.js';

/** Options for {@link parseRunJson}. */
export interface ParseRunJsonOptions {
  /** The container's name (its directory in the revision); used in messages. */
  readonly container: string;
}

/**
 * Parses a container's run.json text and returns its network block. No `network` key means
 * `mode: none`. Accepts both the documented `interfaces[]` form and the flat `ip`/`mac` keys the
 * image templates emit. Throws `InvalidRunJson` with the reason.
 */
export function parseRunJson(text: string, opts: ParseRunJsonOptions): ContainerNetwork {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new DeviceError(
      'InvalidRunJson',
      `${opts.container}: run.json is not valid JSON: ${String(e)}`,
    );
  }
  if (!isObject(doc))
    throw new DeviceError('InvalidRunJson', `${opts.container}: run.json must be an object`);
  if (doc['network'] === undefined) return NO_NETWORK;
  return parseNetworkBlock(doc['network'], opts);
}

/** Validates a run.json `network` value (see {@link parseRunJson}). */
export function parseNetworkBlock(value: unknown, opts: ParseRunJsonOptions): ContainerNetwork {
  const fail = (why: string): never => {
    throw new DeviceError('InvalidRunJson', `${opts.container}: network: ${why}`);
  };
  if (!isObject(value)) return fail(`must be an object, not ${describeJsonType(value)}`);
  const mode = value['mode'];
  const pool = optionalString(value, 'pool', fail);
  const hostname = optionalString(value, 'hostname', fail);
  if (hostname !== undefined && !isValidName('hostname', hostname)) {
    fail(`invalid hostname ${JSON.stringify(hostname)}`);
  }
  const rawInterfaces = value['interfaces'];
  const flatIp = optionalString(value, 'ip', fail);
  const flatMac = optionalString(value, 'mac', fail);
  const wantsPool =
    pool !== undefined ||
    rawInterfaces !== undefined ||
    flatIp !== undefined ||
    flatMac !== undefined;
  if (mode !== undefined && typeof mode !== 'string')
    fail(`mode must be a string (pool, host or none), not ${describeJsonType(mode)}`);
  if (mode !== undefined && mode !== 'pool' && mode !== 'host' && mode !== 'none') {
    fail(`unknown mode ${JSON.stringify(mode)} (pool, host or none)`);
  }
  if ((mode === 'host' || mode === 'none') && wantsPool) {
    fail(`mode "${mode}" cannot be combined with pool, interfaces, ip or mac`);
  }
  if (mode === 'host' || mode === 'none') return { mode, hostname, interfaces: [] };
  if (mode === undefined && !wantsPool) return { mode: 'none', hostname, interfaces: [] };
  if (rawInterfaces !== undefined && !Array.isArray(rawInterfaces))
    fail(`interfaces must be an array, not ${describeJsonType(rawInterfaces)}`);
  const list: unknown[] =
    Array.isArray(rawInterfaces) && rawInterfaces.length > 0 ? rawInterfaces : [{}];
  const interfaces: InterfaceSpec[] = [];
  list.forEach((raw, i) => {
    if (!isObject(raw))
      return fail(`interfaces[${i}] must be an object, not ${describeJsonType(raw)}`);
    const where = `interfaces[${i}]`;
    const name = optionalString(raw, 'name', fail) ?? (i === 0 ? 'eth0' : `eth${i}`);
    if (!isValidName('interface', name))
      fail(`${where}: invalid interface name ${JSON.stringify(name)}`);
    if (interfaces.some((x) => x.name === name)) fail(`${where}: duplicate interface name ${name}`);
    const ifacePool = optionalString(raw, 'pool', fail) ?? pool;
    if (ifacePool === undefined)
      return fail(`${where}: no pool (set network.pool or interfaces[].pool)`);
    if (!isValidName('pool', ifacePool))
      fail(`${where}: invalid pool name ${JSON.stringify(ifacePool)}`);
    let ipText = optionalString(raw, 'ipv4_address', fail);
    const ip6Text = optionalString(raw, 'ipv6_address', fail);
    let macText = optionalString(raw, 'mac_address', fail);
    // The flat keys are the first interface's static settings; a contradiction is an error.
    if (i === 0) {
      if (flatIp !== undefined && ipText !== undefined && flatIp !== ipText)
        fail('ip and interfaces[0].ipv4_address differ');
      if (flatMac !== undefined && macText !== undefined && flatMac !== macText)
        fail('mac and interfaces[0].mac_address differ');
      ipText ??= flatIp;
      macText ??= flatMac;
    }
    const static4 =
      ipText === undefined
        ? undefined
        : parseStaticAddress({ text: ipText, family: 4 }, `${where}: `, fail);
    const static6 =
      ip6Text === undefined
        ? undefined
        : parseStaticAddress({ text: ip6Text, family: 6 }, `${where}: `, fail);
    const mac = macText === undefined ? undefined : normaliseMac(macText);
    if (macText !== undefined && mac === undefined)
      fail(`${where}: invalid unicast MAC ${JSON.stringify(macText)}`);
    interfaces.push({ name, pool: ifacePool, static4, static6, mac });
  });
  return { mode: 'pool', hostname, interfaces };
}

function optionalString(
  obj: Readonly<Record<string, unknown>>,
  key: string,
  fail: (why: string) => never,
): string | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') return fail(`${key} must be a string, not ${describeJsonType(v)}`);
  if (v === '') return fail(`${key} must not be empty`);
  return v;
}

function parseStaticAddress(
  address: { readonly text: string; readonly family: IpFamily },
  where: string,
  fail: (why: string) => never,
): StaticAddress {
  const { text, family } = address;
  const parsed = parseAddressWithPrefix(text, family);
  if (!parsed.ok)
    return fail(`${where}${family === 4 ? 'ipv4_address' : 'ipv6_address'}: ${parsed.why}`);
  return { family, ip: parsed.value.ip, prefix: parsed.value.prefix, text };
}
