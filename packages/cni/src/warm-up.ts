// @netledger/cni/warm-up: what an executable built with a start-up snapshot runs while the snapshot
// is built. Apart from the main entry, so a bundle that does not warm up carries none of it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatastoreOpener } from '@netledger/datastore-config';
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import { silentLogger } from './logger.js';
import { runCniPlugin } from './run-plugin.js';
import type { PluginDeps } from './run-plugin.js';

const NETWORK = 'warm-up';
const NODE = 'warm-up-node';
const POOL = { metadata: { name: 'warm-up' }, spec: { cidr: '10.255.0.0/24' } };

type Run = (command: string, stdin: string) => Promise<string>;
/** What the warm-up uses of the executable's datastore opener. */
type PluginOpener = Pick<DatastoreOpener, 'open' | 'preload'>;

/** Runs commands through the plugin with `deps`; throws on a failed command. */
const runner =
  (deps: Partial<PluginDeps> & Pick<PluginDeps, 'openDatastore'>): Run =>
  async (command, stdin) => {
    const out = await runCniPlugin(
      {
        env: {
          CNI_COMMAND: command,
          CNI_CONTAINERID: 'warm-up',
          CNI_NETNS: '/var/run/netns/warm-up',
          CNI_IFNAME: 'eth0',
          CNI_PATH: '/opt/cni/bin',
          CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=ns;K8S_POD_NAME=pod',
        },
        stdin,
      },
      {
        createLogger: () => silentLogger,
        readFile: async () => undefined,
        osHostname: () => NODE,
        ...deps,
      },
    );
    if (out.exitCode !== 0) throw new Error(`warm-up ${command} failed: ${out.stdout}`);
    return out.stdout;
  };

const netConf = (ipam: Record<string, unknown> = {}) => ({
  cniVersion: '1.1.0',
  name: NETWORK,
  ipam: { type: 'netledger-ipam', nodename: NODE, assign_ipv6: 'false', ...ipam },
});

/** Every command on a memory datastore (no host lock), and ADD and DEL in gateway mode. */
async function warmUpCommands(): Promise<void> {
  const datastore = createMemoryDatastore();
  // Each command closes what it opened; the five share one store.
  const unclosable = new Proxy(datastore, {
    get: (t, k, r) => (k === 'close' ? async () => undefined : (Reflect.get(t, k, r) as unknown)),
  });
  await createIpamClient({ datastore }).pools.create(POOL);
  const run = runner({
    openDatastore: async () => unclosable,
    acquireLock: async () => ({ release: async () => undefined }),
  });
  const conf = netConf();
  const prevResult = JSON.parse(await run('ADD', JSON.stringify(conf))) as unknown;
  await run('CHECK', JSON.stringify({ ...conf, prevResult }));
  await run('DEL', JSON.stringify(conf));
  await run('GC', JSON.stringify({ ...conf, 'cni.dev/valid-attachments': [] }));
  await run('STATUS', JSON.stringify(conf));
  await run('VERSION', '');
  // Gateway mode's path too (bridge, podman): the plan, the reservation, the widened result.
  const gateway = netConf({ mode: 'gateway', ipv4_pools: [POOL.metadata.name] });
  await run('ADD', JSON.stringify(gateway));
  await run('DEL', JSON.stringify(gateway));
}

/**
 * ADD and DEL as an invocation runs them on the default store: the host lock and the file store
 * (opened by the plugin's opener) in a temporary directory, removed before the snapshot is
 * taken; nothing stays open.
 */
async function warmUpFileStore(opener: PluginOpener): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'netledger-warm-up-'));
  try {
    const path = join(dir, 'datastore.json');
    const seed = await opener.open({ type: 'file', path });
    await createIpamClient({ datastore: seed }).pools.create(POOL);
    await seed.close();
    const run = runner({
      openDatastore: (conf) => opener.open(conf),
      preloadDatastore: opener.preload,
    });
    const conf = JSON.stringify(
      netConf({ datastore_path: path, ipam_lock_file: join(dir, 'ipam.lock') }),
    );
    await run('ADD', conf);
    await run('DEL', conf);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the plugin's commands in-process while the start-up snapshot is built, so V8 compiles
 * their paths and the snapshot carries the bytecode (an invocation then skips most lazy
 * compilation): every command on a memory store (ADD and DEL in gateway mode too), and ADD and
 * DEL on a throwaway file store, opened by `opener` (the executable's), with the real host lock.
 * Nothing random may be cached here: the stores draw UIDs with
 * `randomUUID({ disableEntropyCache: true })`, since Node's entropy cache would be replayed by
 * every invocation. Throws if a command fails, so a broken warm-up fails the build instead of
 * shipping a cold snapshot.
 */
export async function warmUpPlugin(opener: PluginOpener): Promise<void> {
  await warmUpCommands();
  await warmUpFileStore(opener);
}
