import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IpamError } from '@netledger/ipam-core';
import type { Datastore } from '@netledger/ipam-core';
import { forwardingDatastore } from '@netledger/ipam-core/adapter';
import { createTempDir } from '@netledger/testkit';
import { runCli } from '../test-support/run-cli.js';
import { assign, memoryStore } from '../test-support/seed.js';
import { COMMANDS } from './commands.js';

let dir: { path: string; remove: () => Promise<void> };
let store: string;
beforeEach(async () => {
  dir = await createTempDir('netledgerctl-');
  store = join(dir.path, 'ds.json');
});
afterEach(async () => {
  await dir.remove();
});

const run = (argv: string[], stdin?: string) =>
  runCli(argv, { storePath: store, ...(stdin !== undefined && { stdin }) });

/** The store file's bytes, to prove a failed command changed nothing. */
const snapshot = async (): Promise<string> => readFile(store, 'utf8').catch(() => '<none>');

async function expectOneLineError(argv: string[], pattern: RegExp, code = 1): Promise<void> {
  const before = await snapshot();
  const r = await run(argv);
  expect(r.code).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^Error: [^\n]+\n$/);
  expect(r.stderr).toMatch(pattern);
  expect(await snapshot()).toBe(before);
}

describe('netledgerctl', () => {
  it('creates pools, assigns, shows blocks', async () => {
    expect(await run(['ippool', 'create', '--name', 'p1', '--cidr', '10.65.0.0/16'])).toMatchObject(
      {
        code: 0,
        stdout: 'Successfully created IPPool p1 (10.65.0.0/16)\n',
      },
    );
    expect((await run(['node', 'create', 'n1'])).code).toBe(0);
    const a = await run(['ipam', 'assign', '--node', 'n1', '--handle', 'h1', '--ip', '10.65.0.5']);
    expect(a).toMatchObject({ code: 0, stdout: '10.65.0.5\n' });
    const show = await run(['ipam', 'show', '--show-blocks']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(
      '| Block    | 10.65.0.0/26 |        64 |     1 (2%) |       0 (0%) |     63 (98%) |',
    );
    const json = await run(['ipam', 'show', '-o', 'json']);
    expect((JSON.parse(json.stdout) as unknown[])[0]).toMatchObject({
      name: 'p1',
      inUse: 1,
      capacity: 65536,
    });
    expect((await run(['ippool', 'list', '-o', 'yaml'])).stdout).toContain('kind: IPPool');
    expect(await run(['ipam', 'release-handle', '--handle', 'h1'])).toMatchObject({
      code: 0,
      stdout: 'Released handle h1 (1 address(es))\n',
    });
    expect((await run(['ipam', 'show', '--ip', '10.65.0.5'])).stdout).toBe(
      '10.65.0.5 is not assigned\n',
    );
  });

  it('configures IPAM with calicoctl messages and the cross-field rules', async () => {
    await run(['ippool', 'create', '--name', 'p1', '--cidr', '10.65.0.0/16']);
    expect(
      await run(['ipam', 'configure', '--strictaffinity', 'true', '--max-blocks-per-host', '4']),
    ).toMatchObject({
      code: 0,
      stdout: 'Successfully set StrictAffinity to: true\nSuccessfully set MaxBlocksPerHost to: 4\n',
    });
    await expectOneLineError(
      ['ipam', 'configure', '--strictaffinity', 'false'],
      /MaxBlocksPerHost requires StrictAffinity/,
    );
    await expectOneLineError(
      ['ipam', 'configure', '--strictaffinity', 'maybe'],
      /invalid value. Use true or false to set strictaffinity/,
    );
    await expectOneLineError(
      ['ipam', 'configure', '--max-blocks-per-host', 'x'],
      /invalid value for maxblockhost/,
    );
    await expectOneLineError(
      ['ipam', 'configure', '--kubevirt-ip-persistence', 'On'],
      /Use Enabled or Disabled/,
    );
    await expectOneLineError(
      ['ipam', 'configure', '--ip-cooldown-seconds', '5000'],
      /ipCooldownSeconds must be an integer from 0 to 1200/,
    );
    await expectOneLineError(
      ['ipam', 'configure'],
      /at least one configuration option must be specified/,
      2,
    );
    expect(
      await run([
        'ipam',
        'configure',
        '--ip-cooldown-seconds',
        '30',
        '--kubevirt-ip-persistence',
        'Disabled',
      ]),
    ).toMatchObject({
      stdout:
        'Successfully set KubeVirtVMAddressPersistence to: Disabled\nSuccessfully set IPCooldownSeconds to: 30\n',
    });
    const cfg = await run(['ipam', 'show', '--show-configuration', '-o', 'json']);
    expect(JSON.parse(cfg.stdout)).toEqual({
      StrictAffinity: true,
      AutoAllocateBlocks: true,
      MaxBlocksPerHost: 4,
      KubeVirtVMAddressPersistence: 'Disabled',
      IPCooldownSeconds: 30,
    });
  });

  it('rejects bad input with one line on stderr and changes nothing', async () => {
    await run(['ippool', 'create', '--name', 'p1', '--cidr', '10.65.0.0/16']);
    await expectOneLineError(['ipam', 'show', '--bogus'], /Unknown option '--bogus'/, 2);
    await expectOneLineError(
      ['ippool', 'create', '--name', 'p2', '--cidr', '10.66.0.0/33'],
      /CIDR/,
    );
    await expectOneLineError(['ippool', 'create', '--name', 'p2', '--cidr', 'banana'], /CIDR/);
    await expectOneLineError(
      ['ippool', 'create', '--name', 'p2', '--cidr', '10.65.1.0/24'],
      /overlaps with IPPool\(p1\)/,
    );
    await expectOneLineError(
      ['ippool', 'create', '--name', 'p2', '--cidr', '10.66.0.0/16', '--block-size', '12'],
      /block/i,
    );
    await expectOneLineError(
      ['ippool', 'create', '--name', 'p2', '--cidr', '10.66.0.0/16', '--allowed-uses', 'Pods'],
      /unknown allowed use "Pods"/,
    );
    await expectOneLineError(['ipam', 'show', '--ip', 'nope'], /invalid IP address/);
    await expectOneLineError(['ipam', 'frobnicate'], /unknown command "ipam frobnicate"/, 2);
    await expectOneLineError(['ippool', 'delete', 'nope'], /does not exist/);
    await expectOneLineError(['ippool', 'get', 'a', 'b'], /unexpected argument "b"/, 2);
    await expectOneLineError(['ipam', 'show', '-o', 'xml'], /unknown output format "xml"/, 2);
    const htmlOnlyForBlocks = /output format "html" is only for ipam show --show-blocks/;
    await expectOneLineError(['ipam', 'show', '-o', 'html'], htmlOnlyForBlocks, 2);
    await expectOneLineError(
      ['ipam', 'show', '--show-borrowed', '-o', 'html'],
      htmlOnlyForBlocks,
      2,
    );
    await expectOneLineError(['ippool', 'list', '-o', 'html'], /unknown output format "html"/, 2);
  });

  it('fails clearly on a missing datastore and creates nothing', async () => {
    const r = await runCli(['ipam', 'show'], { storePath: join(dir.path, 'sub', 'none.json') });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: no datastore at .*none\.json/);
    await expect(stat(join(dir.path, 'sub'))).rejects.toThrow();
    const k = await runCli(['ipam', 'show'], {
      env: { DATASTORE_TYPE: 'kubernetes', KUBECONFIG: join(dir.path, 'no-kubeconfig') },
    });
    expect(k).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/cannot load Kubernetes config from .*no-kubeconfig: ENOENT/),
    });
    const c = await runCli(['ipam', 'show', '-c', join(dir.path, 'missing.cfg')]);
    expect(c).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/cannot read .*missing\.cfg: ENOENT/),
    });
  });

  it('applies, gets and deletes manifests from files and stdin', async () => {
    const manifest = `apiVersion: projectcalico.org/v3
kind: IPPool
metadata:
  name: p1
spec:
  cidr: 10.70.0.0/16
  blockSize: 28
---
apiVersion: projectcalico.org/v3
kind: IPReservation
metadata:
  name: r1
spec:
  reservedCIDRs: [10.70.0.0/30]
---
apiVersion: projectcalico.org/v3
kind: Node
metadata:
  name: n1
  labels: { zone: a }
---
apiVersion: projectcalico.org/v3
kind: IPAMConfiguration
metadata:
  name: default
spec:
  strictAffinity: true
  maxBlocksPerHost: 3
`;
    expect(await run(['create', '-f', '-'], manifest)).toMatchObject({
      code: 0,
      stdout:
        "Successfully created 1 'IPPool' resource(s)\nSuccessfully created 1 'IPReservation' resource(s)\n" +
        "Successfully created 1 'Node' resource(s)\nSuccessfully created 1 'IPAMConfiguration' resource(s)\n",
    });
    const again = await run(['create', '-f', '-'], manifest);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/failed to create IPPool "p1"/);
    expect(
      (
        await run(
          ['apply', '-f', '-'],
          manifest.replace('blockSize: 28', 'blockSize: 28\n  disabled: true'),
        )
      ).code,
    ).toBe(0);
    const got = await run(['get', '-f', '-', '-o', 'json'], manifest);
    const list = JSON.parse(got.stdout) as {
      items: { kind: string; spec: Record<string, unknown> }[];
    };
    expect(list.items.map((i) => i.kind)).toEqual([
      'IPPool',
      'IPReservation',
      'Node',
      'IPAMConfiguration',
    ]);
    expect(list.items[0]!.spec).toMatchObject({
      cidr: '10.70.0.0/16',
      blockSize: 28,
      disabled: true,
    });
    expect(list.items[3]!.spec).toMatchObject({ strictAffinity: true, maxBlocksPerHost: 3 });
    const json = JSON.stringify({
      apiVersion: 'projectcalico.org/v3',
      kind: 'IPPool',
      metadata: { name: 'p1' },
      spec: { cidr: '10.70.0.0/16' },
    });
    expect((await run(['delete', '-f', '-'], json)).stdout).toBe(
      "Successfully deleted 1 'IPPool' resource(s)\n",
    );
    expect(JSON.parse((await run(['ippool', 'list', '-o', 'json'])).stdout)).toEqual({
      kind: 'IPPoolList',
      apiVersion: 'projectcalico.org/v3',
      metadata: {},
      items: [],
    });
  });

  it('validates manifests before writing anything', async () => {
    await run(['ippool', 'create', '--name', 'p0', '--cidr', '10.1.0.0/16']);
    const before = await snapshot();
    const bad = [
      'kind: IPPool\nmetadata: {name: a}\nspec: {cidr: 10.2.0.0/16}\n---\nkind: IPPool\nmetadata: {name: b}\nspec: {cidr: 10.2.1.0/24}\n',
      'kind: Pod\nmetadata: {name: a}\n',
      'kind: IPPool\nspec: {cidr: 10.3.0.0/16}\n',
      '{"kind": "IPPool", ',
    ];
    for (const text of bad) {
      const r = await run(['create', '-f', '-'], text);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^Error: [^\n]+\n$/);
    }
    expect(await snapshot()).toBe(before);
  });

  it('has --help for every command', async () => {
    for (const c of COMMANDS) {
      const r = await run([...c.path, '--help']);
      expect(r.code, c.path.join(' ')).toBe(0);
      expect(r.stdout).toContain(`usage: netledgerctl ${c.path.join(' ')}`);
    }
    expect((await run(['--help'])).stdout).toContain('ipam show');
    expect((await run(['ipam', '--help'])).stdout).toContain('ipam configure');
    expect((await run([])).code).toBe(2);
  });

  it.each(COMMANDS.map((c) => [c.path.join(' '), c] as const))(
    '%s --help describes each of its flags and shows an example',
    async (_, c) => {
      const help = (await run([...c.path, '--help'])).stdout;
      const options = help.slice(0, help.indexOf('Options for every command:'));
      for (const [flag, o] of Object.entries(c.options)) {
        // Each flag on a line of its own description: `  --flag` or `  -f, --flag`.
        const line = new RegExp(`^ {2}${o.short ? `-${o.short}, ` : ''}--${flag}\\b`, 'm');
        expect(options, `${c.path.join(' ')}: --${flag}`).toMatch(line);
      }
      const example = /\nExample:\n {2}(netledgerctl [^\n]+)\n/.exec(options)?.[1];
      expect(example, c.path.join(' ')).toMatch(
        new RegExp(`\\bnetledgerctl ${c.path.join(' ')}\\b`),
      );
    },
  );
});

describe('the default config file', () => {
  const config = (spec: Record<string, string>): string =>
    `apiVersion: projectcalico.org/v3\nkind: CalicoAPIConfig\nmetadata: {}\nspec:\n${Object.entries(
      spec,
    )
      .map(([k, v]) => `  ${k}: ${v}\n`)
      .join('')}`;

  it("reads netledgerctl.cfg, else Calico's calicoctl.cfg; a set variable and -c win", async () => {
    const own = join(dir.path, 'netledgerctl.cfg');
    const calico = join(dir.path, 'calicoctl.cfg');
    const stores = ['a', 'b', 'c', 'd'].map((n) => join(dir.path, `${n}.json`));
    await writeFile(calico, config({ datastoreType: 'file', datastorePath: stores[0]! }));
    const files = { io: { defaultConfigFiles: [own, calico] } };
    const create = (name: string, extra: Parameters<typeof runCli>[1] = {}) =>
      runCli(['node', 'create', name], { ...files, ...extra });
    expect((await create('from-calico')).code).toBe(0);
    await writeFile(own, config({ datastoreType: 'file', datastorePath: stores[1]! }));
    expect((await create('from-own')).code).toBe(0);
    expect((await create('from-env', { env: { NETLEDGER_DATASTORE_PATH: stores[2]! } })).code).toBe(
      0,
    );
    const explicit = join(dir.path, 'explicit.cfg');
    await writeFile(explicit, config({ datastoreType: 'file', datastorePath: stores[3]! }));
    const r = await runCli(['node', 'create', 'from-c', '-c', explicit], {
      ...files,
      env: { NETLEDGER_DATASTORE_PATH: stores[2]! },
    });
    expect(r.code).toBe(0);
    const names = async (store: string) =>
      (
        JSON.parse((await runCli(['node', 'list', '-o', 'json'], { storePath: store })).stdout) as {
          items: { metadata: { name: string } }[];
        }
      ).items.map((n) => n.metadata.name);
    expect(await names(stores[0]!)).toEqual(['from-calico']);
    expect(await names(stores[1]!)).toEqual(['from-own']);
    expect(await names(stores[2]!)).toEqual(['from-env']);
    expect(await names(stores[3]!)).toEqual(['from-c']);
  });

  it('refuses a default config file it cannot read or parse, naming it', async () => {
    const bad = join(dir.path, 'calicoctl.cfg');
    await writeFile(bad, 'kind: Other\n');
    const r = await runCli(['ippool', 'list'], { io: { defaultConfigFiles: [bad] } });
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `Error: ${bad}: expected kind CalicoAPIConfig\n`,
    });
    const unreadable = await runCli(['ippool', 'list'], { io: { defaultConfigFiles: [dir.path] } });
    expect(unreadable).toMatchObject({
      code: 1,
      stderr: `Error: cannot read ${dir.path}: EISDIR\n`,
    });
  });
});

describe('what a command does not fail for is said on stderr', () => {
  /** A memory store holding `10.0.0.1` for handle h on node-1, behind `wrap`. */
  async function seeded(wrap: (ds: Datastore) => Partial<Datastore>) {
    const { datastore, ipam } = memoryStore();
    await ipam.pools.create({ metadata: { name: 'p' }, spec: { cidr: '10.0.0.0/26' } });
    await assign(ipam, 'node-1', 'h', ['10.0.0.1']);
    const wrapped: Datastore = { ...forwardingDatastore(datastore), ...wrap(datastore) };
    return { datastore, io: { openDatastore: async () => wrapped } };
  }

  it('a datastore that fails to close: a warning, the outcome and exit status unchanged', async () => {
    const { io } = await seeded(() => ({
      close: () => Promise.reject(new IpamError('Unavailable', 'lock release failed')),
    }));
    const r = await runCli(['ipam', 'release-handle', '--handle', 'h'], { io });
    expect(r).toEqual({
      code: 0,
      stdout: 'Released handle h (1 address(es))\n',
      stderr: 'Warning: closing the datastore: lock release failed\n',
    });
  });

  it("the IPAM client's report of a failed best-effort step: a warning, the release done", async () => {
    const { datastore, io } = await seeded((ds) => ({
      close: async () => undefined, // kept open for the check below
      // After the release, ensuring the emptied block's affinity reads the node.
      get: (key) =>
        key.kind === 'Node'
          ? Promise.reject(new IpamError('Unavailable', 'injected: node read'))
          : ds.get(key),
    }));
    const r = await runCli(['ipam', 'release-handle', '--handle', 'h'], { io });
    expect(r).toEqual({
      code: 0,
      stdout: 'Released handle h (1 address(es))\n',
      stderr:
        'Warning: Error ensuring consistent affinity but IP already released. Returning no error. (block 10.0.0.0/26): injected: node read\n',
    });
    await expect(datastore.get({ kind: 'IPAMHandle', handleId: 'h' })).rejects.toMatchObject({
      code: 'DoesNotExist',
    });
  });
});
