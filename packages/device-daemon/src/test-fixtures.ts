// Builders for tests (excluded from the build by the test-* pattern).
import { parseIp } from '@netledger/accounting';
import type { StaticAddress } from './container-network.js';
import type { Revision, RevisionFiles } from './revision.js';
import { parseRevision } from './revision.js';
import type { Pool } from './pool.js';
import { parsePool } from './parse-device-json.js';

/** A pool definition as written in device.json. */
export interface PoolJson {
  type?: string;
  bridge?: string;
  subnet?: string;
  gateway?: string;
  nat?: boolean | string;
  subnet6?: string;
  gateway6?: string;
  nat6?: boolean | string;
}

/** The value of an address (IPv4 or IPv6) written as text. */
export function ip(text: string): bigint {
  return parseIp(text).value;
}

/** A static address as run.json would give it (`10.0.6.50`, `10.0.6.50/24`, `fd00::5/64`). */
export function staticAddress(text: string): StaticAddress {
  const [address = '', prefix] = text.split('/');
  return {
    family: address.includes(':') ? 6 : 4,
    ip: ip(address),
    prefix: prefix === undefined ? undefined : Number(prefix),
    text,
  };
}

/** One container of a fixture revision. */
export interface ContainerFixture {
  network?: unknown;
  lxc?: string;
  runJson?: string;
}

/** device.json text for the given pools. */
export function deviceJson(pools: Record<string, PoolJson>): string {
  return JSON.stringify({ network: { pools } });
}

/** Revision files from plain objects (no `pools`: a device.json that declares none). */
export function revisionFiles(args: {
  pools?: Record<string, PoolJson>;
  containers?: Record<string, ContainerFixture>;
}): RevisionFiles {
  return {
    deviceJson: deviceJson(args.pools ?? {}),
    containers: Object.entries(args.containers ?? {}).map(([name, c]) => ({
      name,
      runJson: c.runJson ?? JSON.stringify(c.network === undefined ? {} : { network: c.network }),
      lxcConfig: c.lxc,
    })),
  };
}

/** A parsed revision from plain objects. */
export function revisionOf(args: Parameters<typeof revisionFiles>[0]): Revision {
  return parseRevision(revisionFiles(args));
}

/** A bridge pool `name` on `subnet` with the gateway at .1 (or as given). */
export function bridgePool(name: string, subnet: string, extra: PoolJson = {}): Pool {
  const base = subnet.split('/')[0]!.split('.');
  return parsePool(name, {
    type: 'bridge',
    bridge: `br-${name}`.slice(0, 15),
    subnet,
    gateway: `${base[0]}.${base[1]}.${base[2]}.${Number(base[3]) + 1}`,
    ...extra,
  });
}

/** An IPv6 bridge pool `name` on `subnet6` with the gateway at ::1 (or as given), optionally dual-stack. */
export function bridgePool6(name: string, subnet6: string, extra: PoolJson = {}): Pool {
  return parsePool(name, {
    type: 'bridge',
    bridge: `br-${name}`.slice(0, 15),
    subnet6,
    gateway6: subnet6.replace(/::\/\d+$/, '::1'),
    ...extra,
  });
}

/** Captures the error thrown by `fn` (fails the test if nothing is thrown). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error, none was thrown');
}
