import { runCniPlugin, silentLogger } from '@netledger/cni';
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';

const NETWORK = 'warm-up';
const NODE = 'warm-up-node';

/**
 * Runs ADD, CHECK, DEL, GC and STATUS in-process on a memory datastore, so V8 compiles the
 * plugin's command paths while the start-up snapshot is built and the snapshot carries their
 * bytecode (an invocation then skips most lazy compilation). Touches no file, no environment
 * and no `crypto.randomUUID`: Node caches entropy for it and a snapshot would replay that cache
 * in every invocation (the memory store numbers its UIDs instead). Throws if a command fails, so
 * a broken warm-up fails the build instead of shipping a cold snapshot.
 */
export async function warmUp(): Promise<void> {
  const datastore = createMemoryDatastore();
  // Each command closes what it opened; the five share one store.
  const unclosable = new Proxy(datastore, {
    get: (t, k, r) => (k === 'close' ? async () => undefined : (Reflect.get(t, k, r) as unknown)),
  });
  await createIpamClient({ datastore }).pools.create({
    metadata: { name: 'warm-up' },
    spec: { cidr: '10.255.0.0/24' },
  });
  const conf = {
    cniVersion: '1.1.0',
    name: NETWORK,
    ipam: { type: 'netledger-ipam', nodename: NODE, assign_ipv6: 'false' },
  };
  const run = async (command: string, stdin: string): Promise<string> => {
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
        openDatastore: async () => unclosable,
        createLogger: () => silentLogger,
        readFile: async () => undefined,
        osHostname: () => NODE,
        acquireLock: async () => ({ release: async () => undefined }),
      },
    );
    if (out.exitCode !== 0) throw new Error(`warm-up ${command} failed: ${out.stdout}`);
    return out.stdout;
  };
  const prevResult = JSON.parse(await run('ADD', JSON.stringify(conf))) as unknown;
  await run('CHECK', JSON.stringify({ ...conf, prevResult }));
  await run('DEL', JSON.stringify(conf));
  await run('GC', JSON.stringify({ ...conf, 'cni.dev/valid-attachments': [] }));
  await run('STATUS', JSON.stringify(conf));
  await run('VERSION', '');
}
