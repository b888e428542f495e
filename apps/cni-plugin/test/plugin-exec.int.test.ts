import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileDatastore } from '@netledger/datastore-file';
import { createIpamClient, isIpamError } from '@netledger/ipam-core';
import type { IpamClient } from '@netledger/ipam-core';
import { createTempDir } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cniEnv, execPlugin, execPluginAsync, requirePlugin } from './exec-harness.js';

let dir: { path: string; remove: () => Promise<void> };
let dsPath: string;
let conf: (over?: Record<string, unknown>, ipam?: Record<string, unknown>) => string;

async function withClient<T>(fn: (c: IpamClient) => Promise<T>): Promise<T> {
  const ds = await createFileDatastore({ path: dsPath });
  try {
    return await fn(createIpamClient({ datastore: ds }));
  } finally {
    await ds.close();
  }
}

const held = (handle: string): Promise<string[]> =>
  withClient((c) =>
    c.ipsByHandle(handle).catch((e: unknown) => {
      if (isIpamError(e, 'DoesNotExist')) return [];
      throw e;
    }),
  );

beforeAll(async () => {
  requirePlugin();
  dir = await createTempDir('netledger-cni-exec-');
  dsPath = join(dir.path, 'store', 'datastore.json');
  conf = (over = {}, ipam = {}) =>
    JSON.stringify({
      cniVersion: '1.1.0',
      name: 'execnet',
      ...over,
      ipam: {
        type: 'netledger-ipam',
        nodename: 'exec-node',
        datastore_path: dsPath,
        ipam_lock_file: join(dir.path, 'ipam.lock'),
        log_level: 'error',
        ...ipam,
      },
    });
  await withClient(async (c) => {
    await c.pools.create({ metadata: { name: 'v4' }, spec: { cidr: '10.77.0.0/24' } });
    await c.pools.create({ metadata: { name: 'v6' }, spec: { cidr: 'fd77::/120' } });
  });
});

afterAll(async () => {
  await dir?.remove();
});

describe('netledger-ipam executable', () => {
  it('VERSION and the about text', () => {
    expect(execPlugin(cniEnv('VERSION'), '')).toMatchObject({
      status: 0,
      json: {
        cniVersion: '1.1.0',
        supportedVersions: ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
      },
    });
    const about = execPlugin({ PATH: '/usr/bin:/bin' }, '');
    expect(about.status).toBe(0);
    expect(about.stderr).toContain(
      'CNI protocol versions supported: 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0',
    );
  });

  it.each([
    ['garbage', 'this is not json', 6],
    ['truncated', '{"cniVersion": "1.0.0", "name": "x", "ipam": {', 6],
    ['empty stdin', '', 6],
    ['no name', '{"cniVersion": "1.0.0"}', 7],
    ['old version', '{"cniVersion": "0.2.0", "name": "x"}', 1],
  ])('a malformed config (%s) gives error JSON, never a bare stack trace', (_, stdin, code) => {
    const r = execPlugin(cniEnv('ADD'), stdin);
    expect(r.status).toBe(1);
    expect(r.json).toMatchObject({ code, msg: expect.any(String) });
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
  });

  it.each([
    ['calico', 999, 'cannot find a qualified ippool'],
    // bridge gets gateway mode, which needs the segment's pool: refused before anything is written.
    [
      'bridge',
      7,
      'network noipam: gateway mode (the default under main plugin "bridge") needs ipv4_pools: the pools of the segment',
    ],
  ])(
    'a failed ADD under %s with no ipam section registers nothing: no Node left in the store',
    async (type, code, msg) => {
      const empty = join(dir.path, `empty-${type}`, 'datastore.json');
      const r = execPlugin(
        cniEnv('ADD', 'no-ipam', { NETLEDGER_DATASTORE_PATH: empty }),
        JSON.stringify({ cniVersion: '1.0.0', name: 'noipam', type }),
      );
      expect(r).toMatchObject({ status: 1, json: { code, msg } });
      const ds = await createFileDatastore({ path: empty });
      try {
        expect((await ds.list({ kind: 'Node' })).items).toEqual([]);
        expect((await ds.list({ kind: 'IPAMHandle' })).items).toEqual([]);
      } finally {
        await ds.close();
      }
    },
  );

  it('ADD registers the node, CHECK passes, DEL releases, CHECK then fails', async () => {
    const add = execPlugin(
      cniEnv('ADD', 'x1', { CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=ns;K8S_POD_NAME=p1' }),
      conf(),
    );
    expect(add.status).toBe(0);
    const address = (add.json!['ips'] as { address: string }[])[0]!.address;
    expect(address).toMatch(/^10\.77\.0\.\d+\/26$/);
    expect(await withClient((c) => c.nodes.get('exec-node'))).toMatchObject({
      metadata: { name: 'exec-node' },
    });
    expect(
      await withClient((c) => c.getAssignmentAttributes(address.split('/')[0]!)),
    ).toMatchObject({
      handleId: 'execnet.x1',
      activeOwnerAttrs: { node: 'exec-node', namespace: 'ns', pod: 'p1' },
    });
    expect(execPlugin(cniEnv('CHECK', 'x1'), conf({ prevResult: add.json }))).toMatchObject({
      status: 0,
      stdout: '',
    });
    expect(execPlugin(cniEnv('DEL', 'x1'), conf())).toMatchObject({ status: 0, stdout: '' });
    expect(await held('execnet.x1')).toEqual([]);
    expect(execPlugin(cniEnv('CHECK', 'x1'), conf({ prevResult: add.json }))).toMatchObject({
      status: 1,
      json: { code: 999, msg: 'netledger-ipam: no addresses are allocated to execnet.x1' },
    });
    expect(execPlugin(cniEnv('DEL', 'never-added'), conf())).toMatchObject({ status: 0 });
  });

  it('dual-stack, and an explicit IP= as /32', async () => {
    const dual = execPlugin(
      cniEnv('ADD', 'x2'),
      conf({ cniVersion: '0.4.0' }, { assign_ipv6: 'true' }),
    );
    expect(dual.json).toMatchObject({
      cniVersion: '0.4.0',
      ips: [
        { version: '4', address: expect.stringMatching(/\/26$/) },
        { version: '6', address: expect.stringMatching(/^fd77::[0-9a-f]*\/122$/) },
      ],
    });
    const fixed = execPlugin(
      cniEnv('ADD', 'x3', { CNI_ARGS: 'IgnoreUnknown=1;IP=10.77.0.200' }),
      conf(),
    );
    expect(fixed.json).toMatchObject({
      ips: [{ address: '10.77.0.200/32' }],
      routes: [{ dst: '10.77.0.200/32' }],
    });
    execPlugin(cniEnv('DEL', 'x2'), conf());
    execPlugin(cniEnv('DEL', 'x3'), conf());
    expect(await held('execnet.x2')).toEqual([]);
  });

  it('a dual-stack ADD naming an IPv6 pool that does not exist is refused before assigning', async () => {
    const r = execPlugin(
      cniEnv('ADD', 'x4'),
      conf({}, { assign_ipv6: 'true', ipv6_pools: ['fd99::/120'] }),
    );
    expect(r).toMatchObject({
      status: 1,
      json: { code: 7, msg: 'the given pool (fd99::/120) does not exist, or is not enabled' },
    });
    expect(await held('execnet.x4')).toEqual([]);
  });

  it('GC releases what is not a valid attachment; STATUS reports the store', async () => {
    for (const id of ['g1', 'g2']) expect(execPlugin(cniEnv('ADD', id), conf()).status).toBe(0);
    const gc = execPlugin(
      cniEnv('GC', ''),
      conf({ 'cni.dev/valid-attachments': [{ containerID: 'g1', ifname: 'eth0' }] }),
    );
    expect(gc).toMatchObject({ status: 0, stdout: '' });
    expect((await held('execnet.g1')).length).toBe(1);
    expect(await held('execnet.g2')).toEqual([]);
    expect(execPlugin(cniEnv('STATUS', ''), conf())).toMatchObject({ status: 0, stdout: '' });
    expect(execPlugin(cniEnv('STATUS', ''), conf({}, { ipv4_pools: ['missing'] }))).toMatchObject({
      status: 1,
      json: { code: 50, msg: 'no usable IPv4 pool among missing' },
    });
    execPlugin(cniEnv('DEL', 'g1'), conf());
  });

  it('an unusable datastore location is an invalid network config (7), STATUS says unavailable (50)', () => {
    const blocker = join(dir.path, 'not-a-dir');
    writeFileSync(blocker, '');
    const bad = { datastore_path: join(blocker, 'ds.json') };
    expect(execPlugin(cniEnv('ADD', 'x5'), conf({}, bad)).json).toMatchObject({
      code: 7,
      msg: expect.stringContaining('not-a-dir'),
    });
    expect(execPlugin(cniEnv('STATUS', ''), conf({}, bad)).json).toMatchObject({ code: 50 });
  });

  it('20 concurrent ADDs get distinct addresses and 20 DELs release them all', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `conc${i}`);
    const adds = await Promise.all(ids.map((id) => execPluginAsync(cniEnv('ADD', id), conf())));
    for (const a of adds) expect(a).toMatchObject({ status: 0 });
    const addresses = adds.map((a) => (a.json!['ips'] as { address: string }[])[0]!.address);
    expect(new Set(addresses).size).toBe(20);
    const dels = await Promise.all(ids.map((id) => execPluginAsync(cniEnv('DEL', id), conf())));
    for (const d of dels) expect(d.status).toBe(0);
    const util = await withClient((c) => c.getUtilization({ pools: ['v4'] }));
    expect(util[0]).toMatchObject({ inUse: 0 });
  });
});
