import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createTempDir } from '@netledger/testkit';
import { runCli } from '../test-support/run-cli.js';

// `get -o yaml|json` output is what `apply -f` and `create -f` read back (issue #30), for every
// kind netledgerctl handles, whether one resource or a typed list (`IPPoolList`) as calicoctl
// writes them.
let dir: { path: string; remove: () => Promise<void> };
let source: string;
let target: string;
beforeEach(async () => {
  dir = await createTempDir('netledgerctl-round-trip-');
  source = join(dir.path, 'source.json');
  target = join(dir.path, 'target.json');
});
afterEach(async () => {
  await dir.remove();
});

const at = (store: string) => (argv: string[], stdin?: string) =>
  runCli(argv, { storePath: store, ...(stdin !== undefined && { stdin }) });

const SEED = `apiVersion: projectcalico.org/v3
kind: IPPool
metadata:
  name: pods
  labels: { tier: a }
  annotations: { owner: net-team }
spec:
  cidr: 10.70.0.0/16
  blockSize: 28
  nodeSelector: zone == "a"
  natOutgoing: true
  vxlanMode: CrossSubnet
---
apiVersion: projectcalico.org/v3
kind: IPPool
metadata: { name: lb }
spec: { cidr: 10.80.0.0/24, allowedUses: [LoadBalancer], assignmentMode: Manual }
---
apiVersion: projectcalico.org/v3
kind: IPReservation
metadata: { name: gateways }
spec: { reservedCIDRs: [10.70.0.1/32, 10.70.1.0/30] }
---
apiVersion: projectcalico.org/v3
kind: Node
metadata:
  name: node-1
  labels: { zone: a }
spec:
  bgp: { ipv4Address: 192.168.1.10/24, asNumber: 64512 }
---
apiVersion: projectcalico.org/v3
kind: Node
metadata: { name: node-2 }
---
apiVersion: projectcalico.org/v3
kind: IPAMConfiguration
metadata: { name: default }
spec: { strictAffinity: true, maxBlocksPerHost: 4, autoAllocateBlocks: true }
`;

/** The resources as a store holds them, without what a store assigns (uid, times, versions). */
async function resources(store: string): Promise<unknown> {
  const run = at(store);
  const out: Record<string, unknown> = {};
  for (const kind of ['ippool', 'ipreservation', 'node', 'ipamconfiguration']) {
    const list = parse((await run(['get', kind, '-o', 'yaml'])).stdout) as {
      items: { metadata: Record<string, unknown> }[];
    };
    out[kind] = list.items.map(({ metadata, ...rest }) => {
      const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...kept } = metadata;
      return { metadata: kept, ...rest };
    });
  }
  return out;
}

// Every way of reading resources out: per kind a typed list (yaml and json), the `<kind> list`
// commands, and single resources.
const READS: [string, string[]][] = [
  ['get ippool -o yaml', ['get', 'ippool', '-o', 'yaml']],
  ['get ipreservation -o json', ['get', 'ipreservation', '-o', 'json']],
  ['get nodes -o yaml', ['get', 'nodes', '-o', 'yaml']],
  ['get ipamconfig -o json', ['get', 'ipamconfig', '-o', 'json']],
  ['ippool list -o json', ['ippool', 'list', '-o', 'json']],
  ['node list -o yaml', ['node', 'list', '-o', 'yaml']],
  ['reservation list -o yaml', ['reservation', 'list', '-o', 'yaml']],
  ['ippool get pods -o yaml', ['ippool', 'get', 'pods', '-o', 'yaml']],
  ['get node node-1 node-2 -o json', ['get', 'node', 'node-1', 'node-2', '-o', 'json']],
  ['get ipamconfiguration default -o yaml', ['get', 'ipamconfiguration', 'default', '-o', 'yaml']],
];

describe('get -o yaml|json | apply -f - / create -f -', () => {
  it('writes Calico typed lists: IPPoolList with items, keys in calicoctl order', async () => {
    const src = at(source);
    expect((await src(['create', '-f', '-'], SEED)).code).toBe(0);
    const yaml = (await src(['get', 'ippool', '-o', 'yaml'])).stdout;
    expect(yaml).toMatch(/^apiVersion: projectcalico.org\/v3\nitems:\n {2}- apiVersion: /);
    expect(yaml).toMatch(/\nkind: IPPoolList\nmetadata: \{\}\n$/);
    expect(parse(yaml)).toMatchObject({
      kind: 'IPPoolList',
      items: [
        { kind: 'IPPool', metadata: { name: 'lb' } },
        { kind: 'IPPool', metadata: { name: 'pods' } },
      ],
    });
    const json = (await src(['get', 'ipreservation', '-o', 'json'])).stdout;
    expect(json).toMatch(/^\{\n {2}"kind": "IPReservationList",\n {2}"apiVersion": /);
    const one = (await src(['ippool', 'get', 'pods', '-o', 'yaml'])).stdout;
    expect(parse(one)).toMatchObject({ kind: 'IPPool', metadata: { name: 'pods' } });
  });

  it.each(READS)('%s applies back to the same store and changes nothing', async (_, argv) => {
    const src = at(source);
    expect((await src(['create', '-f', '-'], SEED)).code).toBe(0);
    const before = await resources(source);
    const out = await src(argv);
    expect(out).toMatchObject({ code: 0, stderr: '' });
    const applied = await src(['apply', '-f', '-'], out.stdout);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toMatch(/^Successfully applied \d+ '\w+' resource\(s\)\n$/);
    expect(await resources(source)).toEqual(before);
  });

  it.each(READS)('%s creates the same resources in an empty store', async (_, argv) => {
    const src = at(source);
    expect((await src(['create', '-f', '-'], SEED)).code).toBe(0);
    const out = await src(argv);
    // IPAMConfiguration default exists in every store (the defaults): apply it, create the rest.
    const verb = argv.some((a) => /^ipamconfig/.test(a)) ? 'apply' : 'create';
    const created = await at(target)([verb, '-f', '-'], out.stdout);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const got = (await at(target)(['get', '-f', '-', '-o', 'json'], out.stdout)).stdout;
    const want = (await src(['get', '-f', '-', '-o', 'json'], out.stdout)).stdout;
    const strip = (text: string) =>
      JSON.stringify(JSON.parse(text), (k, v: unknown) =>
        k === 'uid' || k === 'resourceVersion' || k === 'creationTimestamp' ? undefined : v,
      );
    expect(strip(got)).toBe(strip(want));
  });

  it('an empty list applies with --skip-empty, and is refused without (as calicoctl)', async () => {
    const run = at(source);
    expect((await run(['node', 'create', 'node-1'])).code).toBe(0);
    const before = await readFile(source, 'utf8');
    const empty = (await run(['get', 'ipreservation', '-o', 'yaml'])).stdout;
    expect(empty).toBe(
      'apiVersion: projectcalico.org/v3\nitems: []\nkind: IPReservationList\nmetadata: {}\n',
    );
    expect(await run(['apply', '-f', '-'], empty)).toMatchObject({
      code: 1,
      stderr: 'Error: stdin: no resources found\n',
    });
    expect(await run(['apply', '-f', '-', '--skip-empty'], empty)).toMatchObject({
      code: 0,
      stdout: '',
    });
    expect(await readFile(source, 'utf8')).toBe(before);
  });

  it.each([
    [
      'kind: IPPoolList\nitems:\n- kind: Node\n  metadata: {name: n}\n',
      'stdin item 0: kind "Node" in a IPPoolList (only IPPool)',
    ],
    ['kind: PodList\nitems: []\n', 'stdin: unsupported kind "PodList"'],
    ['kind: IPPoolList\nitems: []\nselfLink: x\n', 'IPPoolList: unknown field "selfLink"'],
    ['kind: IPPoolList\n', 'stdin: IPPoolList without items'],
    [
      'apiVersion: v1\nkind: IPPoolList\nitems: []\n',
      'unsupported apiVersion "v1" (projectcalico.org/v3)',
    ],
    [
      '- kind: IPPool\n  metadata: {name: a}\n  spec: {cidr: 10.1.0.0/16}\n- kind: Pod\n',
      'stdin item 1: unsupported kind "Pod"',
    ],
  ])('refuses a bad list, writing nothing: %j', async (text, message) => {
    const r = await at(source)(['apply', '-f', '-'], text);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toBe(`Error: ${r.stderr.slice(7, -1)}\n`);
    expect(r.stderr).toContain(message);
    await expect(readFile(source)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads items of a typed list that leave their kind to the list, and sequences', async () => {
    const run = at(source);
    const list = `apiVersion: projectcalico.org/v3
kind: IPPoolList
items:
- metadata: { name: a }
  spec: { cidr: 10.1.0.0/16 }
`;
    expect(await run(['create', '-f', '-'], list)).toMatchObject({
      code: 0,
      stdout: "Successfully created 1 'IPPool' resource(s)\n",
    });
    const seq = `- apiVersion: projectcalico.org/v3
  kind: Node
  metadata: { name: n1 }
- apiVersion: projectcalico.org/v3
  kind: Node
  metadata: { name: n2 }
`;
    expect((await run(['create', '-f', '-'], seq)).stdout).toBe(
      "Successfully created 2 'Node' resource(s)\n",
    );
  });
});
