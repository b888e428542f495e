import type {
  AllocationBlock,
  BlockAffinity,
  Clock,
  Datastore,
  IPPool,
  IPPoolSpec,
  IpamClient,
  IpamConfig,
  IpamErrorCode,
  Random,
} from '@netledger/ipam-core';
import { DEFAULT_IPAM_CONFIG, IpamError, createIpamClient } from '@netledger/ipam-core';
import { expect } from 'vitest';

/** What a store under test provides to `describeIpamScenarios`. */
export interface IpamScenarioTarget {
  /** A store with no objects in it (a fresh one, or one the harness wiped). */
  open(): Promise<Datastore>;
  /** Called once after all scenarios. */
  teardown?(): Promise<void>;
}

/** A clock the scenarios move by hand: cooldowns and reclaim ages never wait for real time. */
interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

/** 2026-01-01T00:00:00Z: a fixed start so every run sees the same times. */
const SCENARIO_EPOCH_MS = Date.UTC(2026, 0, 1);

function createManualClock(startMs = SCENARIO_EPOCH_MS): ManualClock {
  let now = startMs;
  return {
    now: () => now,
    set: (ms) => {
      now = ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

/** A seeded generator (LCG) so block sequence-number seeds and /32 walks repeat run to run. */
function createSeededRandom(seed = 1): Random {
  let s = seed >>> 0;
  return {
    next: () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32;
    },
  };
}

/** One scenario's world: a fresh store, a client over it with a manual clock, and seeding helpers. */
export interface ScenarioEnv {
  readonly ds: Datastore;
  readonly client: IpamClient;
  readonly clock: ManualClock;
  /** Creates a pool (Calico's test pools are keyed by CIDR with empty names: ours get names). */
  pool(name: string, cidr: string, spec?: Omit<IPPoolSpec, 'cidr'>): Promise<IPPool>;
  /** Changes a stored pool's spec (read, merge, update). */
  updatePool(name: string, spec: Partial<IPPoolSpec>): Promise<IPPool>;
  /** Creates a node with labels. */
  node(name: string, labels?: Record<string, string>): Promise<void>;
  /** Replaces a node's labels. */
  relabel(name: string, labels: Record<string, string>): Promise<void>;
  reservation(name: string, reservedCIDRs: string[]): Promise<void>;
  /** Stores the IPAM config: the defaults overridden by `changes`. */
  setConfig(changes: Partial<IpamConfig>): Promise<void>;
  /** Every block in the store. */
  blocks(): Promise<AllocationBlock[]>;
  block(cidr: string): Promise<AllocationBlock>;
  /** Affinities (optionally one host's), as `{ cidr, host, type, state }`. */
  affinities(host?: string): Promise<AffinityRow[]>;
}

interface AffinityRow {
  readonly cidr: string;
  readonly host: string;
  readonly type: string;
  readonly state: BlockAffinity['state'];
}

/** Builds a {@link ScenarioEnv} over a freshly opened store. */
export async function openScenarioEnv(target: IpamScenarioTarget): Promise<ScenarioEnv> {
  const ds = await target.open();
  const clock = createManualClock();
  const client = createIpamClient({ datastore: ds, clock, random: createSeededRandom() });
  return {
    ds,
    client,
    clock,
    pool: (name, cidr, spec = {}) =>
      client.pools.create({ metadata: { name }, spec: { ...spec, cidr } }),
    updatePool: async (name, spec) => {
      const current = await client.pools.get(name);
      return client.pools.update({ ...current, spec: { ...current.spec, ...spec } });
    },
    node: async (name, labels = {}) => {
      await client.nodes.create({ metadata: { name, labels } });
    },
    relabel: async (name, labels) => {
      const current = await client.nodes.get(name);
      await client.nodes.update({ ...current, metadata: { ...current.metadata, labels } });
    },
    reservation: async (name, reservedCIDRs) => {
      await client.reservations.create({ metadata: { name }, spec: { reservedCIDRs } });
    },
    setConfig: (changes) => client.setIpamConfig({ ...DEFAULT_IPAM_CONFIG, ...changes }),
    blocks: async () => (await ds.list({ kind: 'IPAMBlock' })).items.map((kv) => kv.value),
    block: async (cidr) => (await ds.get({ kind: 'IPAMBlock', cidr })).value,
    affinities: async (host) =>
      (await ds.list({ kind: 'BlockAffinity', ...(host !== undefined && { host }) })).items.map(
        (kv) => ({
          cidr: kv.key.cidr,
          host: kv.key.host,
          type: kv.key.affinityType,
          state: kv.value.state,
        }),
      ),
  };
}

/** Awaits a rejection and checks it is an `IpamError` with `code`; returns it for more checks. */
export async function expectIpamError(
  p: Promise<unknown>,
  code: IpamErrorCode,
): Promise<IpamError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected IpamError ${code}`).toBeInstanceOf(IpamError);
  expect(caught).toMatchObject({ code });
  return caught as IpamError;
}

/** The address part of `10.0.0.5/26`. */
export const addressOf = (cidrOrIp: string): string => cidrOrIp.split('/')[0]!;

/** True when the IPv4 address lies in the IPv4 CIDR. */
export function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const toInt = (a: string): number =>
    a.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(bits));
  const start = toInt(base!);
  const x = toInt(addressOf(ip));
  return x >= start && x < start + size;
}

/** The ordinal of an IPv4 address in its IPv4 block. */
export function ordinalIn(ip: string, blockCidr: string): number {
  const toInt = (a: string): number =>
    a.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  return toInt(addressOf(ip)) - toInt(blockCidr.split('/')[0]!);
}

/** The CIDR of the v4 block holding `ip`, for a block size. */
export function blockOf(ip: string, blockSize: number): string {
  const n = addressOf(ip)
    .split('.')
    .reduce((acc, octet) => acc * 256 + Number(octet), 0);
  const size = 2 ** (32 - blockSize);
  const base = n - (n % size);
  const parts = [24, 16, 8, 0].map((s) => Math.floor(base / 2 ** s) % 256);
  return `${parts.join('.')}/${blockSize}`;
}

/** Windows' host-reserved addresses ({3, 1}). */
export const WINDOWS_RESERVED = {
  startOfBlock: 3,
  endOfBlock: 1,
  handle: 'windows-reserved-ipam-handle',
  note: 'ipam ut',
} as const;

/** The scenario registry: each theme file adds its `describe` blocks given the env accessor. */
export type EnvAccessor = () => ScenarioEnv;
