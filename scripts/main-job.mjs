#!/usr/bin/env node
// `npm run demo`: installs dependencies, builds, and runs the main job on the embedded file store:
// create a pool, give a few pods on two nodes their addresses through bin/netledger-ipam exactly
// as a container runtime calls a CNI IPAM plugin, then show the blocks and check the datastore
// with bin/netledgerctl. The store lives under .netledger/ in the checkout, so nothing else on
// the machine is touched (and no root is needed: there are no network namespaces here).
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePnpm } from './prerequisites.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const dir = join(root, '.netledger', 'demo');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const shown = (path) => relative(root, path);

// Set-up first, its output in a log of its own: what follows is the demo's alone.
const setupLog = join(dir, 'setup.log');
writeFileSync(setupLog, '');
ensurePnpm(root);
const started = Date.now();
process.stdout.write(`Setting up (pnpm install, pnpm build; output in ${shown(setupLog)}) ... `);
for (const args of [
  ['install', '--frozen-lockfile'],
  ['run', 'build'],
]) {
  const r = spawnSync('pnpm', args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  appendFileSync(setupLog, `$ pnpm ${args.join(' ')}\n${r.stdout ?? ''}${r.stderr ?? ''}\n`);
  if (r.status !== 0) {
    const tail = readFileSync(setupLog, 'utf8').split('\n').slice(-40).join('\n');
    console.error(`failed.\n\`pnpm ${args.join(' ')}\` exited ${r.status}:\n${tail}`);
    process.exit(1);
  }
}
console.log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s.`);

const store = join(dir, 'datastore.json');
const pluginLog = join(dir, 'netledger-ipam.log');
const env = { ...process.env, NETLEDGER_DATASTORE_PATH: store };
const bin = (name) => join(root, 'bin', name);

/** Runs one command of the demo; exits the demo with its output if it fails. */
function exec(file, args, options = {}) {
  const r = spawnSync(file, args, { env, encoding: 'utf8', ...options });
  if (r.status !== 0) {
    process.stdout.write(r.stdout ?? '');
    process.stderr.write(r.stderr ?? '');
    console.error(`demo: \`${shown(file)} ${args.join(' ')}\` exited ${r.status}`);
    process.exit(1);
  }
  return r;
}

/** A netledgerctl command, echoed with its output. */
function ctl(...args) {
  console.log(`$ netledgerctl ${args.join(' ')}`);
  const r = exec(bin('netledgerctl'), args);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
}

const heading = (text) => console.log(`\n== ${text}\n`);

heading(`netledger demo: cluster IPAM on the embedded file store, ${shown(store)}`);
console.log('1. An IP pool, 10.100.0.0/24, cut into /28 blocks:');
ctl('ippool', 'create', '--name', 'demo-pool', '--cidr', '10.100.0.0/24', '--block-size', '28');

// What a runtime hands Calico's main plugin, which passes it on to its IPAM plugin unchanged:
// under `calico` netledger-ipam answers as calico-ipam does (under `bridge` or `ptp` it would
// default to gateway mode, which needs `ipv4_pools`: docs/cni.md, "Modes").
const netconf = (node) => ({
  cniVersion: '1.0.0',
  name: 'k8s-pod-network',
  type: 'calico',
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
heading('2. Four pods on two nodes get their addresses');
console.log(
  `bin/netledger-ipam runs once per pod, as a container runtime runs a CNI IPAM plugin (CNI_COMMAND=ADD,\nthe network config on stdin); its log goes to ${shown(pluginLog)}.\n`,
);
for (const [node, pod] of pods) {
  const r = exec(bin('netledger-ipam'), [], {
    input: JSON.stringify(netconf(node)),
    env: {
      ...env,
      // Where the plugin, running as root on a real host, may create its store and host lock is
      // the host's choice, not the netconf's: the demo's files live in the checkout.
      NETLEDGER_PATH_ROOTS: dir,
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: `ctr-${pod}`,
      CNI_NETNS: `/var/run/netns/${pod}`,
      CNI_IFNAME: 'eth0',
      CNI_PATH: join(root, 'bin'),
      CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${pod}`,
    },
  });
  appendFileSync(pluginLog, r.stderr);
  const result = JSON.parse(r.stdout);
  const addresses = result.ips.map((ip) => ip.address).join(', ');
  console.log(
    `  default/${pod.padEnd(6)} on ${node}  ->  ${addresses}  (CNI ${result.cniVersion} result)`,
  );
}

heading('3. The pool and its blocks');
ctl('ipam', 'show', '--show-blocks');
heading('4. A consistency check of the whole store');
ctl('ipam', 'check');
console.log(
  `\nDone. The store is ${shown(store)}; the README's "What the demo printed" explains the output.`,
);
