import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd } from '@netledger/testkit';
import type { EtcdFixture } from '@netledger/testkit';
import { runCli } from '../test-support/run-cli.js';
import { testClock } from '../test-support/seed.js';

// A Calico datastore written byte for byte as Calico's Go code writes it (the golden corpus of
// @netledger/ipam-core, test/golden/README.md), put into a real etcd with etcdctl. netledgerctl
// checks it, assigns into it and releases from it; after each step every key is diffed against
// the corpus: only what the step changed may differ, and that must be the bytes Calico would
// write (test/golden/after/).

const GOLDEN = join(import.meta.dirname, '..', '..', '..', 'ipam-core', 'test', 'golden');
const CORPUS = (
  JSON.parse(readFileSync(join(GOLDEN, 'corpus.json'), 'utf8')) as { file: string; key: string }[]
).map(({ file, key }) => [key, readFileSync(join(GOLDEN, 'values', file), 'utf8')] as const);
const after = (file: string): string => readFileSync(join(GOLDEN, 'after', file), 'utf8');

const ETCDCTL = process.env.ETCDCTL_BIN ?? '/usr/bin/etcdctl';
// The time of the steps: after every timestamp in the corpus (2026-03-04T05:06:07Z).
const NOW = Date.UTC(2026, 2, 4, 5, 10, 0);

let etcd: EtcdFixture;

function etcdctl(args: string[]): string {
  return execFileSync(ETCDCTL, [`--endpoints=${etcd.endpoints.join(',')}`, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ETCDCTL_API: '3' },
  });
}

interface Stored {
  readonly value: string;
  readonly modRevision: number;
}

/** Every key under /calico/ with its exact value bytes (etcdctl's JSON output is base64). */
function dump(): Map<string, Stored> {
  const out = JSON.parse(etcdctl(['get', '--prefix', '/calico/', '-w', 'json'])) as {
    kvs?: { key: string; value?: string; mod_revision: number }[];
  };
  const b64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('utf8');
  return new Map(
    (out.kvs ?? []).map((kv) => [
      b64(kv.key),
      { value: b64(kv.value), modRevision: kv.mod_revision },
    ]),
  );
}

/** The corpus with `changes` applied (`undefined` deletes a key), as key -> value. */
function expected(changes: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const out = new Map<string, string>(CORPUS);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) out.delete(key);
    else out.set(key, value);
  }
  return out;
}

const values = (m: Map<string, Stored>): Map<string, string> =>
  new Map([...m].map(([k, v]) => [k, v.value]));

const ctl = (argv: string[]) =>
  runCli(argv, {
    env: { DATASTORE_TYPE: 'etcdv3', ETCD_ENDPOINTS: etcd.endpoints.join(',') },
    io: { clock: testClock(NOW) },
  });

const BLOCK = '/calico/ipam/v2/assignment/ipv4/block/10.1.0.0-29';
const LEGACY_BLOCK = '/calico/ipam/v2/assignment/ipv4/block/10.1.0.16-29';
const LEGACY_EMPTY_AFFINITY = '/calico/ipam/v2/host/n2/ipv4/block/10.1.0.16-29';
const LEGACY_OBJECT_AFFINITY = '/calico/ipam/v2/host/n2/ipv4/block/10.1.0.8-29';

beforeAll(async () => {
  etcd = await startEtcd();
  for (const [key, value] of CORPUS) etcdctl(['put', key, '--', value]);
}, 60_000);

afterAll(async () => {
  await etcd?.stop();
});

describe('netledgerctl on a datastore Calico wrote', () => {
  it('holds the corpus byte for byte, the legacy affinities as 0 bytes and {}', () => {
    const stored = dump();
    expect(values(stored)).toEqual(expected({}));
    expect(stored.get(LEGACY_EMPTY_AFFINITY)?.value).toBe('');
    expect(stored.get(LEGACY_OBJECT_AFFINITY)?.value).toBe('{}');
  });

  it('ipam check reads every value and writes nothing', async () => {
    const before = dump();
    const check = await ctl(['ipam', 'check', '--show-all-ips']);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    // Every block read, legacy ones included: the VM's alternate owner, the legacy null attributes.
    for (const line of [
      'Found 4 IPAM blocks.',
      '  10.1.0.2 allocated; attrs Main:vm-uid.7e57 Extra:namespace=vms,node=n1,pod=virt-launcher-a,vm-uid=7e57,vmi-name=a Alternate:namespace=vms,node=n2,pod=virt-launcher-b',
      '  10.1.0.16 allocated; attrs Main:<none> Extra:',
      '  10.1.0.9 allocated; attrs Main:legacy-handle Extra:node=n2',
      'IPAM blocks record 7 allocations.',
      'Found 2 active IP pools.',
      '  10.1.0.1 belongs to Node(n2)',
      'Found 0 handles with no matching IPs (and 3 handles with matches).',
      'Found 0 invalid IPAMBlocks.',
      // Without workload endpoints, the three allocations that are neither pods nor tunnel
      // addresses count as leaked, as calicoctl counts them.
      'Check complete; found 3 problems.',
    ]) {
      expect(check.stdout.split('\n')).toContain(line);
    }
    expect(dump()).toEqual(before);
  });

  it('ipam assign into the legacy block writes what Calico would, keeping its nulls', async () => {
    const before = dump();
    const assign = await ctl([
      'ipam',
      'assign',
      '--ip',
      '10.1.0.18',
      '--node',
      'n2',
      '--handle',
      'h-new',
      '--attr',
      'namespace=default',
      '--attr',
      'node=n2',
      '--attr',
      'pod=p-new',
    ]);
    expect(assign).toMatchObject({ code: 0, stderr: '' });
    const stored = dump();
    expect(values(stored)).toEqual(
      expected({
        [LEGACY_BLOCK]: after('block-legacy.assigned.txt'),
        '/calico/ipam/v2/handle/h-new': after('handle-h-new.txt'),
      }),
    );
    // The legacy affinities were read, not rewritten.
    for (const key of [LEGACY_EMPTY_AFFINITY, LEGACY_OBJECT_AFFINITY]) {
      expect(stored.get(key)?.modRevision).toBe(before.get(key)?.modRevision);
    }
  });

  it('ipam release with a cooldown writes what Calico would, and deletes the emptied handle', async () => {
    const release = await ctl(['ipam', 'release', '--ip', '10.1.0.2']);
    expect(release).toMatchObject({ code: 0, stderr: '' });
    expect(values(dump())).toEqual(
      expected({
        [LEGACY_BLOCK]: after('block-legacy.assigned.txt'),
        '/calico/ipam/v2/handle/h-new': after('handle-h-new.txt'),
        [BLOCK]: after('block.released.txt'),
        '/calico/ipam/v2/handle/vm-uid.7e57': undefined,
      }),
    );
  });
});
