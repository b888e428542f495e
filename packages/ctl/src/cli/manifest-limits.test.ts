import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempDir } from '@netledger/testkit';
import { runCli } from '../test-support/run-cli.js';

// Issue 26: sizes and shapes netledgerctl refuses before anything is written (item 8: Kubernetes'
// limits, manifest size; item 11: strict decoding, `ipam assign --ip` on an unregistered node),
// and what a manifest apply that fails part-way reports.
let dir: { path: string; remove: () => Promise<void> };
let store: string;
beforeEach(async () => {
  dir = await createTempDir('netledgerctl-limits-');
  store = join(dir.path, 'ds.json');
});
afterEach(async () => {
  await dir.remove();
});

const MIB = 1024 * 1024;
const run = (argv: string[], stdin?: string) =>
  runCli(argv, { storePath: store, ...(stdin !== undefined && { stdin }) });
const snapshot = async (): Promise<string> => readFile(store, 'utf8').catch(() => '<none>');

const poolYaml = (name: string, cidr: string, extra = ''): string =>
  `apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: ${name}\n${extra}spec:\n  cidr: ${cidr}\n`;

/** Runs `argv` expecting a one-line error matching every pattern and the store unchanged. */
async function expectRefused(argv: string[], patterns: RegExp[], stdin?: string): Promise<void> {
  const before = await snapshot();
  const r = await run(argv, stdin);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^Error: [^\n]+\n$/);
  for (const p of patterns) expect(r.stderr).toMatch(p);
  expect(await snapshot()).toBe(before);
}

describe('netledgerctl: Kubernetes limits on what apply -f writes', () => {
  beforeEach(async () => {
    expect((await run(['ippool', 'create', 'p0', '--cidr', '10.1.0.0/16'])).code).toBe(0);
  });

  it.each([
    [
      'IPPool',
      poolYaml('big', '10.2.0.0/16', `  annotations:\n    blob: ${'x'.repeat(10 * MIB)}\n`),
    ],
    [
      'Node',
      `apiVersion: projectcalico.org/v3\nkind: Node\nmetadata:\n  name: big\n  annotations:\n    blob: ${'x'.repeat(10 * MIB)}\n`,
    ],
  ])(
    'apply -f of a %s with a 10 MB annotation is refused naming the object and the 256 KiB limit',
    async (kind, manifest) => {
      const file = join(dir.path, 'big.yaml');
      await writeFile(file, manifest);
      await expectRefused(
        ['apply', '-f', file],
        [
          new RegExp(
            `^Error: ${file}: invalid ${kind} "big": metadata\\.annotations total 10485764 bytes`,
          ),
          /over Kubernetes' limit of 262144 bytes \(256 KiB\)/,
        ],
      );
    },
  );

  it('refuses labels Kubernetes would refuse, on apply -f and node create', async () => {
    await expectRefused(
      ['apply', '-f', '-'],
      [/^Error: stdin: invalid IPPool "p2": metadata\.labels\["zone"\] value "east west"/],
      poolYaml('p2', '10.2.0.0/16', '  labels:\n    zone: east west\n'),
    );
    await expectRefused(
      ['node', 'create', 'n1', '--label', 'a/b/c=x'],
      [/^Error: invalid Node "n1": metadata\.labels key "a\/b\/c" must be a name/],
    );
  });

  it('refuses a manifest file over 16 MiB before reading it whole or parsing it, naming the file and the bound', async () => {
    const file = join(dir.path, 'huge.yaml');
    await writeFile(
      file,
      poolYaml('huge', '10.3.0.0/16', `  annotations:\n    blob: ${'x'.repeat(50 * MIB)}\n`),
    );
    const tooLarge = (what: string) =>
      new RegExp(
        `^Error: ${what} is larger than 16777216 bytes \\(16 MiB\\), the limit for this input: refusing to parse it\\n$`,
      );
    await expectRefused(['apply', '-f', file], [tooLarge(file)]);
    // An endless input is cut off at the bound rather than read until memory runs out.
    await expectRefused(['create', '-f', '/dev/zero'], [tooLarge('/dev/zero')]);
    await expectRefused(['apply', '-f', '-'], [tooLarge('stdin')], 'x'.repeat(16 * MIB + 1));
  });
});

describe('netledgerctl: strict decoding of manifests (as calicoctl)', () => {
  it.each([
    [
      poolYaml('p1', '10.4.0.0/16').replace('cidr:', 'cidrr:'),
      /IPPool "p1": unknown field "spec\.cidrr"/,
    ],
    [
      poolYaml('p1', '10.4.0.0/16').replace('spec:', 'specs:'),
      /IPPool "p1": unknown field "specs"/,
    ],
    [
      poolYaml('p1', '10.4.0.0/16', '  labelz: {a: b}\n').replace('cidr:', 'CIDR:'),
      /IPPool "p1": unknown fields "metadata\.labelz", "spec\.CIDR \(did you mean cidr\?\)"/,
    ],
    [
      'kind: Node\nmetadata: {name: n1}\nspec:\n  addresses: [{adress: 10.0.0.1}]\n',
      /Node "n1": unknown field "spec\.addresses\[0\]\.adress"/,
    ],
    [
      'kind: IPAMConfiguration\nmetadata: {name: default}\nspec: {strictaffinity: true}\n',
      /IPAMConfiguration "default": unknown field "spec\.strictaffinity \(did you mean strictAffinity\?\)"/,
    ],
  ])('refuses %j naming the field and the object', async (manifest, why) => {
    await expectRefused(
      ['apply', '-f', '-'],
      [why, /\(not in projectcalico\.org\/v3 \w+\)/],
      manifest,
    );
  });

  it('still reads back what get -o yaml prints, for every kind', async () => {
    const manifest = [
      poolYaml('p1', '10.4.0.0/16', '  labels: {zone: a}\n  annotations: {note: x}\n'),
      'kind: IPReservation\nmetadata: {name: r1}\nspec: {reservedCIDRs: [10.4.0.1]}\n',
      'kind: Node\nmetadata: {name: n1}\nspec:\n  bgp: {ipv4Address: 10.0.0.1/24}\n  addresses: [{address: 10.0.0.1, type: InternalIP}]\nstatus: {podCIDRs: [10.244.0.0/24]}\n',
      'kind: IPAMConfiguration\nmetadata: {name: default}\nspec: {strictAffinity: true, autoAllocateBlocks: true}\n',
    ].join('---\n');
    expect((await run(['apply', '-f', '-'], manifest)).code).toBe(0);
    const got = await run(['get', '-f', '-', '-o', 'yaml'], manifest);
    expect(got.stdout).toContain('resourceVersion');
    expect(got.stdout).toContain('creationTimestamp');
    expect(await run(['apply', '-f', '-'], got.stdout)).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('netledgerctl: a manifest apply that fails part-way', () => {
  it('names what was applied, what failed and what was not attempted; the store holds exactly the applied', async () => {
    expect((await run(['ippool', 'create', 'existing', '--cidr', '10.5.0.0/16'])).code).toBe(0);
    // The second object passes every check that needs no write, then fails at the store: a
    // pool's CIDR cannot change.
    const manifest = [
      poolYaml('first', '10.6.0.0/16'),
      poolYaml('existing', '10.7.0.0/16'),
      poolYaml('third', '10.8.0.0/16'),
    ].join('---\n');
    const r = await run(['apply', '-f', '-'], manifest);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: failed to apply IPPool "existing": [^\n]*\n$/);
    expect(r.stderr).toMatch(/\[applied: IPPool "first"; not attempted: IPPool "third"\]\n$/);
    const pools = (
      JSON.parse((await run(['ippool', 'list', '-o', 'json'])).stdout) as {
        items: { metadata: { name: string }; spec: { cidr: string } }[];
      }
    ).items;
    expect(pools.map((p) => [p.metadata.name, p.spec.cidr])).toEqual([
      ['existing', '10.5.0.0/16'],
      ['first', '10.6.0.0/16'],
    ]);
  });

  it('says nothing was applied when the first one fails', async () => {
    expect((await run(['ippool', 'create', 'existing', '--cidr', '10.5.0.0/16'])).code).toBe(0);
    const manifest = [poolYaml('existing', '10.7.0.0/16'), poolYaml('second', '10.8.0.0/16')].join(
      '---\n',
    );
    const r = await run(['apply', '-f', '-'], manifest);
    expect(r.stderr).toMatch(/\[nothing applied; not attempted: IPPool "second"\]\n$/);
  });
});

describe('netledgerctl ipam assign --ip', () => {
  it('refuses a node that is not registered, naming it, and writes nothing', async () => {
    expect((await run(['ippool', 'create', 'p1', '--cidr', '10.9.0.0/16'])).code).toBe(0);
    await expectRefused(
      ['ipam', 'assign', '--node', 'ghost', '--ip', '10.9.0.5', '--handle', 'h1'],
      [
        /^Error: node "ghost" is not registered \(no Node resource\): create it first with 'netledgerctl node create ghost'; nothing was assigned\n$/,
      ],
    );
    expect((await run(['node', 'create', 'ghost'])).code).toBe(0);
    expect(
      await run(['ipam', 'assign', '--node', 'ghost', '--ip', '10.9.0.5', '--handle', 'h1']),
    ).toMatchObject({ code: 0, stdout: '10.9.0.5\n' });
  });
});

describe('netledgerctl datastore migrate import: the same limits', () => {
  const exportWith = (node: string): string =>
    `${node}===\n{"block_affinities":[],"blocks":[],"handles":[]}\n`;

  it('refuses a resource whose annotations pass 256 KiB, naming it, before writing', async () => {
    const file = join(dir.path, 'export.yaml');
    await writeFile(
      file,
      exportWith(
        `apiVersion: projectcalico.org/v3\nkind: Node\nmetadata:\n  name: big\n  annotations:\n    blob: ${'x'.repeat(300 * 1024)}\n---\n`,
      ),
    );
    await expectRefused(
      ['datastore', 'migrate', 'import', '-f', file],
      [
        /invalid Node "big": metadata\.annotations total \d+ bytes .* over Kubernetes' limit of 262144 bytes/,
      ],
    );
  });

  it('cuts an endless input off at its bound (256 MiB) instead of reading it whole', async () => {
    await expectRefused(
      ['datastore', 'migrate', 'import', '-f', '/dev/zero'],
      [/^Error: \/dev\/zero is larger than 268435456 bytes \(256 MiB\), the limit for this input/],
    );
  }, 60_000);
});
