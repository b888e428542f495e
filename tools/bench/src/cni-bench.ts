// netledger-ipam through the real exec path (the static client in bin/ running its Node.js
// fallback, as a runtime runs it with no node agent), beside Debian's host-local on an equal /24:
// ADD and DEL latency, the plugin's cost over Node's bare start-up, and 100 containers added at
// once on one host (file store and etcd).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createEtcdDatastore } from '@netledger/datastore-etcd';
import { createFileDatastore } from '@netledger/datastore-file';
import type { Datastore } from '@netledger/ipam-core';
import { createIpamClient } from '@netledger/ipam-core';
import { createTempDir, startEtcd } from '@netledger/testkit';
import type { BenchResult } from './bench-report.js';
import { percentile, writeBenchResults } from './bench-report.js';
import {
  cniEnv as cniEnvOf,
  mustSucceed as must,
  timedRun,
  workspaceRoot,
} from './bench-process.js';

const ROOT = workspaceRoot();
const PLUGIN = join(ROOT, 'bin', 'netledger-ipam');
const HOST_LOCAL = '/usr/lib/cni/host-local';
const ROUNDS = 60;
const CONCURRENT = 100;
const NODE = 'bench-node';

const exec = (file: string, args: string[], env: Record<string, string>, stdin: string) =>
  timedRun({ file, args, env, stdin });
const cniEnv = (command: string, id: string): Record<string, string> =>
  cniEnvOf({ command, id, cniPath: `${join(ROOT, 'bin')}:/usr/lib/cni` });

async function seed(ds: Datastore, cidr: string, node: boolean): Promise<void> {
  const c = createIpamClient({ datastore: ds });
  await c.pools.create({ metadata: { name: 'bench' }, spec: { cidr } });
  if (node) await c.nodes.create({ metadata: { name: NODE } });
  await ds.close();
}

const p = (xs: number[], q: number): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );

/** `count` ADDs started at once; the wall time until the last one answered. */
async function burst(
  conf: string,
  prefix: string,
  command: 'ADD' | 'DEL',
  count: number,
): Promise<number> {
  const start = performance.now();
  const runs = Array.from({ length: count }, (_, i) =>
    must(`${command} ${prefix}${i}`, exec(PLUGIN, [], cniEnv(command, `${prefix}${i}`), conf)),
  );
  await Promise.all(runs);
  return (performance.now() - start) / 1000;
}

async function main(): Promise<void> {
  if (!existsSync(PLUGIN)) throw new Error(`${PLUGIN} is missing: run pnpm build first`);
  if (!existsSync(HOST_LOCAL))
    throw new Error('host-local missing: apt-get install -y containernetworking-plugins');
  const dir = await createTempDir('netledger-cni-bench-');
  const results: BenchResult[] = [];
  try {
    const dsPath = join(dir.path, 'datastore.json');
    await seed(await createFileDatastore({ path: dsPath }), '10.88.0.0/24', false);
    const ipamConf = {
      type: 'netledger-ipam',
      nodename: NODE,
      datastore_path: dsPath,
      ipam_lock_file: join(dir.path, 'ipam.lock'),
      log_level: 'error',
    };
    const nlConf = JSON.stringify({ cniVersion: '1.0.0', name: 'nlbench', ipam: ipamConf });
    const hlConf = JSON.stringify({
      cniVersion: '1.0.0',
      name: 'hlbench',
      ipam: { type: 'host-local', subnet: '10.89.0.0/24', dataDir: join(dir.path, 'host-local') },
    });

    // Interleaved, so both plugins and the bare start-up see the same machine load.
    const t = {
      nlAdd: [] as number[],
      nlDel: [] as number[],
      hlAdd: [] as number[],
      hlDel: [] as number[],
      bare: [] as number[],
    };
    for (let i = -3; i < ROUNDS; i++) {
      const id = `lat${i + 3}`;
      const nlAdd = await must('netledger ADD', exec(PLUGIN, [], cniEnv('ADD', id), nlConf));
      const hlAdd = await must('host-local ADD', exec(HOST_LOCAL, [], cniEnv('ADD', id), hlConf));
      const nlDel = await must('netledger DEL', exec(PLUGIN, [], cniEnv('DEL', id), nlConf));
      const hlDel = await must('host-local DEL', exec(HOST_LOCAL, [], cniEnv('DEL', id), hlConf));
      const bare = await must('node -e 0', exec(process.execPath, ['-e', '0'], {}, ''));
      if (i < 0) continue; // warm-up: page cache, first-run store creation
      t.nlAdd.push(nlAdd);
      t.hlAdd.push(hlAdd);
      t.nlDel.push(nlDel);
      t.hlDel.push(hlDel);
      t.bare.push(bare);
    }
    const ms = (name: string, value: number, target?: string): BenchResult => ({
      name,
      value,
      unit: 'ms',
      better: 'lower',
      ...(target && { target }),
    });
    const overhead = p(t.nlAdd, 50) - p(t.bare, 50);
    results.push(
      ms('netledger-ipam ADD p50 (file store)', p(t.nlAdd, 50)),
      ms('netledger-ipam ADD p99 (file store)', p(t.nlAdd, 99)),
      ms('netledger-ipam DEL p50 (file store)', p(t.nlDel, 50)),
      ms('netledger-ipam DEL p99 (file store)', p(t.nlDel, 99)),
      ms('host-local ADD p50', p(t.hlAdd, 50)),
      ms('host-local ADD p99', p(t.hlAdd, 99)),
      ms('host-local DEL p50', p(t.hlDel, 50)),
      ms('host-local DEL p99', p(t.hlDel, 99)),
      {
        name: 'ADD p50 ratio netledger-ipam / host-local',
        value: p(t.nlAdd, 50) / p(t.hlAdd, 50),
        unit: 'x',
        better: 'lower',
      },
      {
        name: 'DEL p50 ratio netledger-ipam / host-local',
        value: p(t.nlDel, 50) / p(t.hlDel, 50),
        unit: 'x',
        better: 'lower',
      },
      ms('node -e 0 p50 (bare Node start-up)', p(t.bare, 50)),
      ms('netledger-ipam ADD p50 minus node -e 0 p50 (the plugin own work)', overhead),
      {
        name: 'plugin own work / bare Node start-up',
        value: overhead / p(t.bare, 50),
        unit: 'x',
        better: 'lower',
        target: '<= 0.5',
      },
    );

    // 100 containers at once on one host: a fresh file store with a /16.
    const burstPath = join(dir.path, 'burst.json');
    await seed(await createFileDatastore({ path: burstPath }), '10.90.0.0/16', false);
    const burstConf = JSON.stringify({
      cniVersion: '1.0.0',
      name: 'burst',
      ipam: { ...ipamConf, datastore_path: burstPath },
    });
    results.push(
      {
        name: `${CONCURRENT} concurrent ADDs, file store (wall)`,
        value: await burst(burstConf, 'f', 'ADD', CONCURRENT),
        unit: 's',
        better: 'lower',
        target: '< 10 s (Calico: 120-180 s reported)',
      },
      {
        name: `${CONCURRENT} concurrent DELs, file store (wall)`,
        value: await burst(burstConf, 'f', 'DEL', CONCURRENT),
        unit: 's',
        better: 'lower',
      },
    );

    const etcd = await startEtcd();
    try {
      await seed(createEtcdDatastore({ endpoints: etcd.endpoints }), '10.91.0.0/16', true);
      const etcdConf = JSON.stringify({
        cniVersion: '1.0.0',
        name: 'burst',
        ipam: {
          ...ipamConf,
          datastore_type: 'etcdv3',
          etcd_endpoints: etcd.endpoints.join(','),
          datastore_path: undefined,
        },
      });
      const etcdAdd: number[] = [];
      for (let i = 0; i < 20; i++)
        etcdAdd.push(await must('etcd ADD', exec(PLUGIN, [], cniEnv('ADD', `el${i}`), etcdConf)));
      results.push(
        ms('netledger-ipam ADD p50 (etcd, sequential)', p(etcdAdd, 50)),
        {
          name: `${CONCURRENT} concurrent ADDs, etcd (wall)`,
          value: await burst(etcdConf, 'e', 'ADD', CONCURRENT),
          unit: 's',
          better: 'lower',
          target: '< 10 s',
        },
        {
          name: `${CONCURRENT} concurrent DELs, etcd (wall)`,
          value: await burst(etcdConf, 'e', 'DEL', CONCURRENT),
          unit: 's',
          better: 'lower',
        },
      );
    } finally {
      await etcd.stop();
    }
  } finally {
    await dir.remove().catch(() => undefined);
  }
  writeBenchResults('cni', {
    title: 'CNI IPAM plugin (exec path, one host)',
    command: 'pnpm build && pnpm bench --filter=@netledger/bench',
    notes: `Each figure execs bin/netledger-ipam (the static client a runtime would run, serving through its Node.js fallback: no node agent) or /usr/lib/cni/host-local with CNI_* env and the config on stdin, without the bridge plugin. Latency: ${ROUNDS} rounds of ADD and DEL for each plugin and one \`node -e 0\`, interleaved so all see the same load; host-local's /24 equals netledger's pool. The "own work" is ADD p50 minus Node's bare start-up p50. Bursts start ${CONCURRENT} plugin processes at once on this 2-core machine against a fresh store with the host lock serialising them.`,
    results,
  });
}

await main();
