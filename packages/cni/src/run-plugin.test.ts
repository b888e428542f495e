import { createDatastoreOpener } from '@netledger/datastore-config';
import { IpamError, isIpamError } from '@netledger/ipam-core';
import { describe, expect, it } from 'vitest';
import type { Logger } from './logger.js';
import { NODE, baseConf, createHarness } from './test-plugin-harness.js';
import type { Harness } from './test-plugin-harness.js';

const held = async (h: Harness, handle: string): Promise<string[]> =>
  h.client.ipsByHandle(handle).catch((e: unknown) => {
    if (isIpamError(e, 'DoesNotExist')) return [];
    throw e;
  });

/** A logger keeping `<level>: <message>` lines. */
function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (msg: string) => void lines.push(`${level}: ${msg}`);
  return {
    log: { debug: at('debug'), info: at('info'), warning: at('warning'), error: at('error') },
    lines,
  };
}

const K8S = { CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=web-0' };

describe('ADD', () => {
  it('auto-assigns from the pool with the block mask, under <network>.<containerID>', async () => {
    const h = await createHarness();
    const out = await h.run('ADD', baseConf(), K8S);
    expect(out).toMatchObject({ exitCode: 0, stderr: '' });
    const ip = (out.json!['ips'] as { address: string }[])[0]!.address;
    expect(ip).toMatch(/^10\.1\.0\.\d+\/26$/);
    expect(await held(h, 'net1.c1')).toEqual([ip.split('/')[0]]);
    const attrs = await h.client.getAssignmentAttributes(ip.split('/')[0]!);
    expect(attrs).toMatchObject({
      handleId: 'net1.c1',
      activeOwnerAttrs: {
        node: NODE,
        namespace: 'ns1',
        pod: 'web-0',
        timestamp: expect.stringMatching(/ \+0000 UTC$/),
      },
    });
  });

  it.each(['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'])('prints the result in %s', async (v) => {
    const h = await createHarness();
    const out = await h.run('ADD', baseConf({ cniVersion: v }));
    expect(out.stdout.startsWith('{\n    "cniVersion"')).toBe(true);
    const ip = (out.json!['ips'] as { address: string; version?: string }[])[0]!;
    expect(out.json).toMatchObject({
      cniVersion: v,
      routes: [{ dst: expect.stringMatching(/\/26$/) }],
    });
    if (v.startsWith('0.')) expect(ip.version).toBe('4');
    else expect(ip).not.toHaveProperty('version');
  });

  it('assigns both families when assign_ipv6 is "true"', async () => {
    const h = await createHarness({ pools: ['10.1.0.0/24', 'fd00:1::/120'] });
    const out = await h.run('ADD', baseConf({ ipam: { assign_ipv6: 'true' } }));
    expect(out.json!['ips']).toEqual([
      { address: expect.stringMatching(/^10\.1\.0\.\d+\/26$/) },
      { address: expect.stringMatching(/^fd00:1::[0-9a-f]+\/122$/) },
    ]);
  });

  it('uses the named pools', async () => {
    const h = await createHarness({ pools: ['10.1.0.0/24', '10.2.0.0/24'] });
    const byName = await h.run('ADD', baseConf({ ipam: { ipv4_pools: ['pool1'] } }));
    expect(JSON.stringify(byName.json)).toContain('10.2.0.');
    const byCidr = await h.run('ADD', baseConf({ ipam: { ipv4_pools: ['10.2.0.0/24'] } }), {
      CNI_CONTAINERID: 'c2',
    });
    expect(JSON.stringify(byCidr.json)).toContain('10.2.0.');
    const unknown = await h.run('ADD', baseConf({ ipam: { ipv4_pools: ['nope'] } }), {
      CNI_CONTAINERID: 'c3',
    });
    expect(unknown).toMatchObject({
      exitCode: 1,
      json: { code: 7, msg: 'the given pool (nope) does not exist, or is not enabled' },
    });
  });

  it.each([
    ['IP=10.1.0.77', '10.1.0.77/32'],
    ['IgnoreUnknown=1;IP=10.1.0.78', '10.1.0.78/32'],
  ])('CNI_ARGS %s assigns that address as %s', async (args, address) => {
    const h = await createHarness();
    const out = await h.run('ADD', baseConf(), { CNI_ARGS: args });
    expect(out.json).toMatchObject({ ips: [{ address }], routes: [{ dst: address }] });
    expect(await held(h, 'net1.c1')).toEqual([address.split('/')[0]]);
  });

  it('IP= gives /128 for IPv6 and refuses a pool that does not allow workloads', async () => {
    const h = await createHarness({ pools: ['fd00:1::/120'] });
    const v6 = await h.run('ADD', baseConf(), { CNI_ARGS: 'IP=fd00:1::9' });
    expect(v6.json).toMatchObject({ ips: [{ address: 'fd00:1::9/128' }] });
    await h.client.pools.create({
      metadata: { name: 'tunnels' },
      spec: { cidr: '10.9.0.0/24', allowedUses: ['Tunnel'] },
    });
    const refused = await h.run('ADD', baseConf(), {
      CNI_ARGS: 'IP=10.9.0.5',
      CNI_CONTAINERID: 'c2',
    });
    expect(refused).toMatchObject({
      exitCode: 1,
      json: { code: 4, msg: expect.stringContaining('not allowed for use "Workload"') },
    });
  });

  it('registers a missing node on the file store only', async () => {
    const file = await createHarness({ registerNode: false });
    expect((await file.run('ADD', baseConf())).exitCode).toBe(0);
    expect((await file.client.nodes.get(NODE)).metadata.name).toBe(NODE);

    const etcd = await createHarness({ registerNode: false });
    const out = await etcd.run(
      'ADD',
      baseConf({ datastore_type: 'etcdv3', etcd_endpoints: 'http://127.0.0.1:1' }),
    );
    expect(etcd.opened).toEqual(['etcdv3']);
    expect(out).toMatchObject({
      exitCode: 1,
      json: { code: 999, msg: expect.stringContaining(`node ${NODE} does not exist`) },
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['no ipam section', { cniVersion: '1.0.0', name: 'net1', type: 'calico' }],
    ['an ipam section', baseConf()],
  ])('a failed ADD on the file store with %s registers nothing', async (_, conf) => {
    const h = await createHarness({ pools: [], registerNode: false });
    const out = await h.run('ADD', conf);
    expect(out).toMatchObject({
      exitCode: 1,
      json: { code: 999, msg: 'cannot find a qualified ippool' },
    });
    expect(await h.client.nodes.list()).toEqual([]);
    expect((await h.ds.list({ kind: 'BlockAffinity' })).items).toEqual([]);
    // The next ADD, once there is a pool, registers its node and succeeds.
    await h.client.pools.create({ metadata: { name: 'later' }, spec: { cidr: '10.9.0.0/24' } });
    expect((await h.run('ADD', conf)).exitCode).toBe(0);
    expect(await h.client.nodes.list()).toHaveLength(1);
  });

  it('releases the IPv4 address when IPv6 cannot be assigned (dual-stack partial failure)', async () => {
    const h = await createHarness({ pools: ['10.1.0.0/24'] });
    const out = await h.run('ADD', baseConf({ ipam: { assign_ipv6: 'true' } }));
    expect(out).toMatchObject({ exitCode: 1, json: { code: 999 } });
    expect((await h.client.getUtilization())[0]).toMatchObject({ inUse: 0 });
  });

  it('releases nothing it did not assign and reports exhaustion as Calico does', async () => {
    const h = await createHarness({ pools: [] });
    await h.client.pools.create({
      metadata: { name: 'tiny' },
      spec: { cidr: '10.3.0.0/30', blockSize: 30 },
    });
    for (let i = 0; i < 4; i++)
      expect((await h.run('ADD', baseConf(), { CNI_CONTAINERID: `c${i}` })).exitCode).toBe(0);
    const out = await h.run('ADD', baseConf(), { CNI_CONTAINERID: 'c9' });
    expect(out).toMatchObject({
      exitCode: 1,
      json: {
        cniVersion: '1.0.0',
        code: 999,
        msg: expect.stringContaining(
          'failed to request IPv4 addresses: Assigned 0 out of 1 requested IPv4 addresses',
        ),
      },
    });
    expect((await h.client.getUtilization())[0]).toMatchObject({ inUse: 4 });
  });
});

describe('DEL', () => {
  it('releases the handle; a second DEL and a DEL of something never added succeed', async () => {
    const h = await createHarness();
    await h.run('ADD', baseConf());
    expect(await h.run('DEL', baseConf())).toMatchObject({ exitCode: 0, stdout: '' });
    expect((await h.client.getUtilization())[0]).toMatchObject({ inUse: 0 });
    expect((await h.run('DEL', baseConf())).exitCode).toBe(0);
    expect((await h.run('DEL', baseConf(), { CNI_CONTAINERID: 'never' })).exitCode).toBe(0);
  });

  it('then releases the legacy workload ID <namespace>.<pod>', async () => {
    const h = await createHarness();
    await h.client.autoAssign({
      num4: 1,
      hostname: NODE,
      handleId: 'ns1.web-0',
      intendedUse: 'Workload',
    });
    await h.run('ADD', baseConf(), K8S);
    expect(await h.run('DEL', baseConf(), K8S)).toMatchObject({ exitCode: 0 });
    expect((await h.client.getUtilization())[0]).toMatchObject({ inUse: 0 });
  });

  it('does not need CNI_NETNS', async () => {
    const h = await createHarness();
    expect((await h.run('DEL', baseConf(), { CNI_NETNS: '' })).exitCode).toBe(0);
  });
});

describe('CHECK', () => {
  it('passes while the handle holds the addresses of prevResult, fails after DEL', async () => {
    const h = await createHarness();
    const add = await h.run('ADD', baseConf());
    const prevResult = add.json;
    expect(await h.run('CHECK', baseConf())).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await h.run('CHECK', baseConf({ prevResult }))).toMatchObject({ exitCode: 0 });
    const wrong = await h.run(
      'CHECK',
      baseConf({ prevResult: { ips: [{ address: '10.1.0.250/26' }] } }),
    );
    expect(wrong).toMatchObject({
      exitCode: 1,
      json: { code: 999, msg: expect.stringContaining('prevResult names [10.1.0.250]') },
    });
    await h.run('DEL', baseConf());
    expect(await h.run('CHECK', baseConf({ prevResult }))).toMatchObject({
      exitCode: 1,
      json: { code: 999, msg: 'netledger-ipam: no addresses are allocated to net1.c1' },
    });
  });

  it.each(['0.3.0', '0.3.1'])('is refused for config version %s', async (v) => {
    const h = await createHarness();
    expect((await h.run('CHECK', baseConf({ cniVersion: v }))).json).toMatchObject({
      code: 1,
      msg: 'config version does not allow CHECK',
    });
  });
});

describe('GC', () => {
  it("releases this node's handles of this network that are not valid attachments", async () => {
    const h = await createHarness();
    for (const c of ['c1', 'c2', 'c3'])
      await h.run('ADD', baseConf({ cniVersion: '1.1.0' }), { CNI_CONTAINERID: c });
    await h.run('ADD', baseConf({ cniVersion: '1.1.0', name: 'other' }), { CNI_CONTAINERID: 'c4' });
    await h.client.nodes.create({ metadata: { name: 'node-b' } });
    await h.run('ADD', baseConf({ cniVersion: '1.1.0', ipam: { nodename: 'node-b' } }), {
      CNI_CONTAINERID: 'c5',
    });
    const gc = await h.run(
      'GC',
      baseConf({
        cniVersion: '1.1.0',
        'cni.dev/valid-attachments': [{ containerID: 'c1', ifname: 'eth0' }],
      }),
      {
        CNI_CONTAINERID: '',
        CNI_IFNAME: '',
      },
    );
    expect(gc).toMatchObject({ exitCode: 0, stdout: '' });
    expect((await held(h, 'net1.c1')).length).toBe(1);
    expect(await held(h, 'net1.c2')).toEqual([]);
    expect(await held(h, 'net1.c3')).toEqual([]);
    expect((await held(h, 'other.c4')).length).toBe(1);
    expect((await held(h, 'net1.c5')).length).toBe(1);
  });

  it('refuses a config without valid-attachments and releases nothing; an empty list releases all', async () => {
    const h = await createHarness();
    for (const c of ['c1', 'c2'])
      await h.run('ADD', baseConf({ cniVersion: '1.1.0' }), { CNI_CONTAINERID: c });
    const env = { CNI_CONTAINERID: '', CNI_IFNAME: '' };
    const refused = await h.run('GC', baseConf({ cniVersion: '1.1.0' }), env);
    expect(refused.json).toMatchObject({
      code: 7,
      msg: expect.stringContaining('"cni.dev/valid-attachments"'),
    });
    expect((await held(h, 'net1.c1')).length).toBe(1);
    expect((await held(h, 'net1.c2')).length).toBe(1);
    const none = baseConf({ cniVersion: '1.1.0', 'cni.dev/valid-attachments': [] });
    expect(await h.run('GC', none, env)).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await held(h, 'net1.c1')).toEqual([]);
    expect(await held(h, 'net1.c2')).toEqual([]);
  });

  it('is refused before 1.1.0', async () => {
    const h = await createHarness();
    expect((await h.run('GC', baseConf({ cniVersion: '1.0.0' }))).json).toMatchObject({
      code: 1,
      msg: 'config version does not allow GC',
    });
  });
});

describe('STATUS', () => {
  it('succeeds when the datastore answers and a pool is usable', async () => {
    const h = await createHarness();
    expect(await h.run('STATUS', baseConf({ cniVersion: '1.1.0' }))).toMatchObject({
      exitCode: 0,
      stdout: '',
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no IPv6 pool', { ipam: { assign_ipv6: 'true' } }, 'no usable IPv6 pool for node node-a'],
    ['named pool missing', { ipam: { ipv4_pools: ['nope'] } }, 'no usable IPv4 pool among nope'],
  ])('fails 50 with %s', async (_, over, msg) => {
    const h = await createHarness();
    expect((await h.run('STATUS', baseConf({ cniVersion: '1.1.0', ...over }))).json).toMatchObject({
      code: 50,
      msg,
    });
  });

  it('fails 50 when the datastore cannot be opened or read', async () => {
    const h = await createHarness();
    const unopened = await h.run(
      'STATUS',
      baseConf({ cniVersion: '1.1.0' }),
      {},
      {
        openDatastore: () => Promise.reject(new IpamError('Unavailable', 'etcd down')),
      },
    );
    expect(unopened.json).toMatchObject({ code: 50, msg: 'datastore unavailable: etcd down' });
  });

  it('is refused before 1.1.0', async () => {
    const h = await createHarness();
    expect((await h.run('STATUS', baseConf())).json).toMatchObject({
      code: 1,
      msg: 'config version does not allow STATUS',
    });
  });
});

describe('VERSION and the about text', () => {
  it('VERSION prints the supported versions without reading stdin', async () => {
    const h = await createHarness();
    const out = await h.run('VERSION', {});
    expect(out).toMatchObject({
      exitCode: 0,
      json: {
        cniVersion: '1.1.0',
        supportedVersions: ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
      },
    });
  });

  it('prints the about text on stderr when CNI_COMMAND is unset', async () => {
    const h = await createHarness();
    const out = await h.run('', baseConf());
    expect(out).toMatchObject({
      exitCode: 0,
      stdout: '',
      stderr: expect.stringContaining(
        'CNI protocol versions supported: 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0',
      ),
    });
  });
});

describe('error codes', () => {
  it.each<
    [string, string, Record<string, unknown> | string, Record<string, string>, number, string]
  >([
    [
      'unsupported version',
      'ADD',
      { cniVersion: '0.2.0', name: 'n' },
      {},
      1,
      'incompatible CNI versions',
    ],
    ['missing cniVersion (0.1.0)', 'ADD', { name: 'n' }, {}, 1, 'incompatible CNI versions'],
    [
      'future version',
      'ADD',
      { cniVersion: '2.0.0', name: 'n' },
      {},
      1,
      'incompatible CNI versions',
    ],
    ['unknown command', 'FROB', baseConf(), {}, 4, 'unknown CNI_COMMAND: FROB'],
    [
      'missing env',
      'ADD',
      baseConf(),
      { CNI_IFNAME: '' },
      4,
      'required env variables [CNI_IFNAME] missing',
    ],
    ['bad CNI_ARGS', 'ADD', baseConf(), { CNI_ARGS: 'FOO=1' }, 4, 'ARGS: unknown args "FOO=1"'],
    [
      'malformed JSON',
      'ADD',
      '{"cniVersion": "1.0.0", "name": ',
      {},
      6,
      'error unmarshalling network config',
    ],
    [
      'malformed version',
      'ADD',
      { cniVersion: 'one', name: 'n' },
      {},
      6,
      'unparsable CNI version "one"',
    ],
    [
      'wrong JSON type',
      'ADD',
      baseConf({ ipam: { assign_ipv6: true } }),
      {},
      6,
      'assign_ipv6 must be a JSON string',
    ],
    ['missing name', 'ADD', { cniVersion: '1.0.0' }, {}, 7, 'missing network name'],
    [
      'unsupported field',
      'DEL',
      baseConf({ ipam: { datastore_type: 'etcdv3', etcd_discovery_srv: 'x' } }),
      {},
      2,
      'etcd_discovery_srv',
    ],
  ])('%s', async (_, command, conf, env, code, msg) => {
    const h = await createHarness();
    const out = await (typeof conf === 'string'
      ? (await import('./run-plugin.js')).runCniPlugin(
          {
            env: {
              CNI_COMMAND: command,
              CNI_CONTAINERID: 'c',
              CNI_NETNS: '/n',
              CNI_IFNAME: 'eth0',
              CNI_PATH: '/p',
              ...env,
            },
            stdin: conf,
          },
          {
            openDatastore: async () => h.ds,
            acquireLock: async () => undefined,
            readFile: async () => undefined,
            osHostname: () => 'x',
          },
        )
      : h.run(command, conf, env));
    expect(out.exitCode).toBe(1);
    expect(out.stdout).not.toMatch(/\n\s+at /);
    expect(JSON.parse(out.stdout)).toMatchObject({ code, msg: expect.stringContaining(msg) });
  });

  it.each([
    ['ADD', 7, /^cannot load Kubernetes config from \/nonexistent\/kubeconfig: ENOENT/],
    ['STATUS', 50, /^datastore unavailable: cannot load Kubernetes config from \/nonexistent/],
  ])(
    'the kubernetes datastore reaches the opener, which opens the kubeconfig: %s -> %d',
    async (command, code, msg) => {
      const h = await createHarness();
      const opener = createDatastoreOpener({
        user: () => ({ uid: 1000, home: '/nonexistent' }),
        etcd: { transport: 'http', loadGrpc: () => Promise.reject(new Error('no gRPC')) },
      });
      const out = await h.run(
        command,
        baseConf({
          cniVersion: '1.1.0',
          datastore_type: 'kubernetes',
          kubernetes: { kubeconfig: '/nonexistent/kubeconfig' },
        }),
        {},
        { openDatastore: (conf) => opener.open(conf) },
      );
      expect(out.json).toMatchObject({ code, msg: expect.stringMatching(msg) });
    },
  );

  it('an unreachable datastore is "try again later" (11)', async () => {
    const h = await createHarness();
    const out = await h.run(
      'ADD',
      baseConf(),
      {},
      { openDatastore: () => Promise.reject(new IpamError('Unavailable', 'lock held by pid 7')) },
    );
    expect(out.json).toMatchObject({ cniVersion: '1.0.0', code: 11, msg: 'lock held by pid 7' });
  });

  it('no pool is internal (999)', async () => {
    const h = await createHarness({ pools: [] });
    const out = await h.run('ADD', baseConf());
    expect(out.json).toMatchObject({ code: 999, msg: expect.stringContaining('qualified') });
  });

  it('an unexpected exception is internal (999) with its message', async () => {
    const h = await createHarness();
    const out = await h.run(
      'ADD',
      baseConf({ ipam: { nodename: undefined } }),
      {},
      {
        osHostname: () => {
          throw new TypeError('kaboom');
        },
      },
    );
    expect(out.json).toMatchObject({ code: 999, msg: 'kaboom' });
  });
});

describe('lock and timeout', () => {
  it('takes the host lock for ADD, DEL and GC only, at the configured path', async () => {
    const h = await createHarness();
    const taken: string[] = [];
    const deps = {
      acquireLock: async (o: { path: string }) => {
        taken.push(o.path);
        return { release: async () => undefined };
      },
    };
    const conf = baseConf({ cniVersion: '1.1.0', ipam: { ipam_lock_file: '/tmp/x.lock' } });
    for (const cmd of ['ADD', 'CHECK', 'STATUS', 'GC', 'DEL']) await h.run(cmd, conf, {}, deps);
    expect(taken).toEqual(['/tmp/x.lock', '/tmp/x.lock', '/tmp/x.lock']);
  });

  it('starts the timeout once the lock is held, and times out as "try again later"', async () => {
    const h = await createHarness();
    const slowLock = {
      acquireLock: async () => {
        await new Promise((r) => setTimeout(r, 150));
        return { release: async () => undefined };
      },
      timeoutMs: 100,
    };
    expect((await h.run('ADD', baseConf(), {}, slowLock)).exitCode).toBe(0);

    const stuck = new Proxy(h.ds, {
      get: (t, k, r) =>
        k === 'get'
          ? () => new Promise(() => undefined)
          : k === 'close'
            ? async () => undefined
            : (Reflect.get(t, k, r) as unknown),
    });
    const out = await h.run(
      'ADD',
      baseConf(),
      { CNI_CONTAINERID: 'c2' },
      { openDatastore: async () => stuck, timeoutMs: 50 },
    );
    expect(out.json).toMatchObject({ code: 11, msg: 'ADD timed out after 50 ms' });
  });

  it('preloads the adapter before the lock and opens the datastore after it', async () => {
    const h = await createHarness();
    const order: string[] = [];
    await h.run(
      'ADD',
      baseConf(),
      {},
      {
        preloadDatastore: async () => void order.push('preload'),
        acquireLock: async () => {
          order.push('lock');
          return { release: async () => void order.push('release') };
        },
        openDatastore: async () => {
          order.push('open');
          return h.ds;
        },
      },
    );
    expect(order).toEqual(['preload', 'lock', 'open', 'release']);
  });

  it('closes the datastore on success and on failure', async () => {
    const h = await createHarness();
    let closed = 0;
    const tracked = new Proxy(h.ds, {
      get: (t, k, r) =>
        k === 'close' ? async () => void closed++ : (Reflect.get(t, k, r) as unknown),
    });
    await h.run('ADD', baseConf(), {}, { openDatastore: async () => tracked });
    await h.run(
      'ADD',
      baseConf({ ipam: { ipv4_pools: ['nope'] } }),
      {},
      { openDatastore: async () => tracked },
    );
    expect(closed).toBe(2);
  });

  it('logs a datastore that fails to close as a warning; the ADD still succeeds', async () => {
    const h = await createHarness();
    const failing = new Proxy(h.ds, {
      get: (t, k, r) =>
        k === 'close'
          ? async () => {
              throw new IpamError('Unavailable', 'datastore lock release failed');
            }
          : (Reflect.get(t, k, r) as unknown),
    });
    const { log, lines } = capturingLogger();
    const out = await h.run(
      'ADD',
      baseConf(),
      {},
      { openDatastore: async () => failing, createLogger: () => log },
    );
    expect(out).toMatchObject({ exitCode: 0, stderr: '' });
    expect(lines).toContain('warning: closing the datastore: datastore lock release failed');
  });
});

describe('nodename_file', () => {
  it('a file that cannot be read is logged as an error and taken as absent, as calico-ipam does', async () => {
    const h = await createHarness();
    const { log, lines } = capturingLogger();
    const denied = Object.assign(new Error('EACCES: permission denied, open /etc/nodename'), {
      code: 'EACCES',
    });
    const out = await h.run(
      'ADD',
      baseConf({ ipam: { nodename: undefined, nodename_file: '/etc/nodename', hostname: NODE } }),
      {},
      { readFile: () => Promise.reject(denied), createLogger: () => log },
    );
    expect(out).toMatchObject({ exitCode: 0, stderr: '' });
    expect(lines).toContain(
      'error: Failed to read /etc/nodename: EACCES: permission denied, open /etc/nodename',
    );
    expect(await held(h, 'net1.c1')).toHaveLength(1);
  });
});

describe('the IPAM client reports', () => {
  it('a failed best-effort step of the release goes to the log; the DEL still succeeds', async () => {
    const h = await createHarness();
    expect((await h.run('ADD', baseConf())).exitCode).toBe(0);
    // After the release, ensuring the emptied block's affinity reads the node: make that fail.
    const failing = new Proxy(h.ds, {
      get: (t, k, r) =>
        k === 'get'
          ? async (key: { kind: string }) => {
              if (key.kind === 'Node') throw new IpamError('Unavailable', 'injected: node read');
              return h.ds.get(key as never);
            }
          : k === 'close'
            ? async () => undefined
            : (Reflect.get(t, k, r) as unknown),
    });
    const { log, lines } = capturingLogger();
    const out = await h.run(
      'DEL',
      baseConf(),
      {},
      { openDatastore: async () => failing, createLogger: () => log },
    );
    expect(out).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await held(h, 'net1.c1')).toEqual([]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^warning: Error ensuring consistent affinity but IP already released\. Returning no error\. \(block 10\.1\.0\.\d+\/26\): injected: node read$/,
      ),
    );
  });
});
