// In-process harness: runs runCniPlugin against one shared memory datastore.
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import type { PluginDeps } from './plugin-deps.js';
import type { PluginOutput } from './run-plugin.js';
import { runCniPlugin } from './run-plugin.js';

export interface Harness {
  readonly ds: Datastore;
  readonly client: IpamClient;
  readonly opened: string[];
  run(
    command: string,
    conf: Record<string, unknown>,
    env?: Record<string, string>,
    deps?: Partial<PluginDeps>,
  ): Promise<PluginOutput & { json: Record<string, unknown> | undefined }>;
}

export const NODE = 'node-a';

/**
 * A network config as Calico's main plugin hands it to its IPAM plugin (calico mode); `over`
 * replaces top-level keys (`type: 'bridge'` for a main plugin that gets gateway mode) and adds to
 * `ipam`.
 */
export function baseConf(over: Record<string, unknown> = {}): Record<string, unknown> {
  const { ipam, ...rest } = over;
  return {
    cniVersion: '1.0.0',
    name: 'net1',
    type: 'calico',
    ...rest,
    ipam: { type: 'netledger-ipam', nodename: NODE, ...(ipam as object | undefined) },
  };
}

export async function createHarness(
  opts: { pools?: string[]; registerNode?: boolean } = {},
): Promise<Harness> {
  const ds = createMemoryDatastore();
  const client = createIpamClient({ datastore: ds });
  for (const [i, cidr] of (opts.pools ?? ['10.1.0.0/24']).entries()) {
    await client.pools.create({ metadata: { name: `pool${i}` }, spec: { cidr } });
  }
  if (opts.registerNode !== false) await client.nodes.create({ metadata: { name: NODE } });
  const opened: string[] = [];
  const shared = new Proxy(ds, {
    get: (t, k, r) => (k === 'close' ? async () => undefined : (Reflect.get(t, k, r) as unknown)),
  });
  return {
    ds,
    client,
    opened,
    async run(command, conf, env = {}, deps = {}) {
      const out = await runCniPlugin(
        {
          env: {
            CNI_COMMAND: command,
            CNI_CONTAINERID: 'c1',
            CNI_NETNS: '/var/run/netns/x',
            CNI_IFNAME: 'eth0',
            CNI_PATH: '/opt/cni/bin',
            ...env,
          },
          stdin: JSON.stringify(conf),
        },
        {
          openDatastore: async (c) => {
            opened.push(c.type);
            return shared;
          },
          readFile: async () => undefined,
          osHostname: () => 'os-host',
          acquireLock: async () => ({ release: async () => undefined }),
          ...deps,
        },
      );
      return {
        ...out,
        json: out.stdout ? (JSON.parse(out.stdout) as Record<string, unknown>) : undefined,
      };
    },
  };
}
