// The conflist `netledger-ipam install-cni` writes, run as a runtime runs it: Debian's ptp (the
// default main plugin) with netledger-ipam in gateway mode, the installed static client handing
// every command to a running netledger-node (no Node.js fallback installed), in throwaway network
// namespaces. Needs root, iproute2, iputils-ping, containernetworking-plugins, `pnpm build`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir, startNodeAgent } from '@netledger/testkit';
import type { NodeAgentFixture } from '@netledger/testkit';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered } from './agent-harness.js';
import { BIN_DIR, PLUGIN } from './exec-harness.js';
import { createNetnsHarness, requireNetnsPrerequisites } from './netns-harness.js';

const CONTAINERS = 3;
const NODE = 'ptp-node';

let tmp: { path: string; remove: () => Promise<void> };
let h: ReturnType<typeof createNetnsHarness>;
let agent: NodeAgentFixture | undefined;
let netconf: Record<string, unknown>;
const containers: { id: string; netns: string; address?: string }[] = [];
const storePath = (): string => join(tmp.path, 'store', 'datastore.json');

beforeAll(async () => {
  requireNetnsPrerequisites();
  tmp = await createTempDir('netledger-ptp-');
  const binDir = join(tmp.path, 'bin');
  const confDir = join(tmp.path, 'net.d');
  const socket = join(tmp.path, 'run', 'node.sock');
  const ds = await createFileDatastore({ path: storePath() });
  try {
    await createIpamClient({ datastore: ds }).pools.create({
      metadata: { name: 'ptp-pool' },
      spec: { cidr: '10.125.0.0/24' },
    });
  } finally {
    await ds.close();
  }
  agent = await startNodeAgent({
    bin: join(BIN_DIR, 'netledger-node'),
    nodename: NODE,
    socket,
    env: { NETLEDGER_DATASTORE_PATH: storePath() },
  });
  const install = spawnSync(PLUGIN, ['install-cni', '--bin-dir', binDir, '--conf-dir', confDir], {
    env: {
      NETLEDGER_IPV4_POOLS: 'ptp-pool',
      NODENAME: NODE,
      NETLEDGER_AGENT_SOCKET: socket,
      DATASTORE_TYPE: 'file',
      NETLEDGER_DATASTORE_PATH: storePath(),
    },
    encoding: 'utf8',
  });
  if (install.status !== 0) throw new Error(`install-cni failed: ${install.stderr}`);
  const conflist = JSON.parse(readFileSync(join(confDir, '10-netledger.conflist'), 'utf8')) as {
    cniVersion: string;
    name: string;
    plugins: Record<string, unknown>[];
  };
  // What a runtime hands the one plugin of the list.
  netconf = { cniVersion: conflist.cniVersion, name: conflist.name, ...conflist.plugins[0] };
  h = createNetnsHarness('pt', { binDir });
  for (let i = 0; i < CONTAINERS; i++)
    containers.push({ id: `ptp${i}${h.suffix}`, netns: h.container(i) });
}, 120_000);

afterAll(async () => {
  await agent?.stop('SIGKILL');
  h?.cleanup();
  await tmp?.remove();
});

describe('ptp with the conflist install-cni writes, through netledger-node', () => {
  it('ADD: each container gets a distinct address of the pool with its gateway, from the agent', async () => {
    expect(netconf).toMatchObject({
      type: 'ptp',
      ipam: { type: 'netledger-ipam', mode: 'gateway' },
    });
    for (const c of containers) {
      const r = await h.runPlugin('ptp', 'ADD', {
        containerId: c.id,
        netns: c.netns,
        conf: netconf,
      });
      if (r.status !== 0) throw new Error(`ADD failed (${r.status}): ${r.stdout}${r.stderr}`);
      const [ip] = (r.json?.['ips'] ?? []) as { address: string; gateway: string }[];
      expect(ip).toMatchObject({
        address: expect.stringMatching(/^10\.125\.0\.\d+\/24$/),
        gateway: '10.125.0.1',
      });
      c.address = ip!.address;
      expect(h.addresses(c.netns)).toEqual([c.address]);
    }
    const addresses = containers.map((c) => c.address);
    expect(new Set(addresses).size).toBe(CONTAINERS);
    expect(addresses).not.toContain('10.125.0.1/24');
    expect(answered(await agent!.status(), 'ADD')).toBe(CONTAINERS);
  });

  it('containers reach the gateway (on the host side of their veth) and each other', () => {
    for (const [i, c] of containers.entries()) {
      expect(h.ping(c.netns, '10.125.0.1')).toBe(true);
      const other = containers[(i + 1) % containers.length]!;
      expect(h.ping(c.netns, other.address!.split('/')[0]!)).toBe(true);
    }
  });

  it('DEL removes the interfaces and frees every address but the reserved gateway', async () => {
    for (const c of containers) {
      const r = await h.runPlugin('ptp', 'DEL', {
        containerId: c.id,
        netns: c.netns,
        conf: netconf,
      });
      if (r.status !== 0) throw new Error(`DEL failed (${r.status}): ${r.stdout}${r.stderr}`);
      expect(h.hasLink(c.netns)).toBe(false);
    }
    expect(answered(await agent!.status(), 'DEL')).toBe(CONTAINERS);
    const ds = await createFileDatastore({ path: storePath() });
    try {
      const ipam = createIpamClient({ datastore: ds });
      for (const c of containers)
        expect(
          await ipam.ipsByHandle(`${netconf['name'] as string}.${c.id}`).catch(() => []),
        ).toEqual([]);
    } finally {
      await ds.close();
    }
  });
});
