#!/usr/bin/env node
// `npm run demo`: installs dependencies, builds, and runs the main job on the embedded file store:
// create a pool, give a few pods on two nodes their addresses through bin/netledger-ipam exactly
// as a container runtime calls a CNI IPAM plugin, then show the blocks and check the datastore
// with bin/netledgerctl. The store lives under .netledger/ in the checkout, so nothing else on
// the machine is touched (and no root is needed: there are no network namespaces here).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePnpm, run } from './prerequisites.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
ensurePnpm(root);
for (const args of [
  ['install', '--frozen-lockfile'],
  ['run', 'build'],
]) {
  if (run('pnpm', args) !== 0) process.exit(1);
}

const dir = join(root, '.netledger', 'demo');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const store = join(dir, 'datastore.json');
const env = { ...process.env, NETLEDGER_DATASTORE_PATH: store };
const bin = (name) => join(root, 'bin', name);

function step(title, file, args, options = {}, { echo = true } = {}) {
  console.log(`\n$ ${title}`);
  const r = spawnSync(file, args, { env, encoding: 'utf8', ...options });
  if (echo && r.stdout) process.stdout.write(r.stdout);
  if (r.stderr) process.stderr.write(r.stderr);
  if (r.status !== 0) {
    console.error(`main job: "${title}" exited ${r.status}`);
    process.exit(1);
  }
  return r.stdout;
}

step(
  'netledgerctl ippool create --name demo-pool --cidr 10.100.0.0/24 --block-size 28',
  bin('netledgerctl'),
  ['ippool', 'create', '--name', 'demo-pool', '--cidr', '10.100.0.0/24', '--block-size', '28'],
);

// What a runtime hands the bridge plugin, which passes it on to its IPAM plugin unchanged.
const netconf = (node) => ({
  cniVersion: '1.0.0',
  name: 'k8s-pod-network',
  type: 'bridge',
  bridge: 'cni0',
  ipam: {
    type: 'netledger-ipam',
    nodename: node,
    datastore_type: 'file',
    datastore_path: store,
    ipam_lock_file: join(dir, 'ipam.lock'),
  },
});
const pods = [
  ['node-a', 'web-0'],
  ['node-a', 'web-1'],
  ['node-a', 'web-2'],
  ['node-b', 'db-0'],
];
for (const [node, pod] of pods) {
  const out = step(
    `CNI_COMMAND=ADD netledger-ipam   (pod default/${pod} on ${node})`,
    bin('netledger-ipam'),
    [],
    {
      input: JSON.stringify(netconf(node)),
      env: {
        ...env,
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: `ctr-${pod}`,
        CNI_NETNS: `/var/run/netns/${pod}`,
        CNI_IFNAME: 'eth0',
        CNI_PATH: join(root, 'bin'),
        CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${pod}`,
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
    { echo: false },
  );
  const result = JSON.parse(out);
  console.log(
    `  -> ${result.ips.map((ip) => ip.address).join(', ')} (CNI ${result.cniVersion} result)`,
  );
}
step('netledgerctl ipam show --show-blocks', bin('netledgerctl'), [
  'ipam',
  'show',
  '--show-blocks',
]);
step('netledgerctl ipam check', bin('netledgerctl'), ['ipam', 'check']);
console.log(`\nstore: ${store}`);
