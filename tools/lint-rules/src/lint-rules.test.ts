// The repository's lint rules (eslint.config.js) run through ESLint's Node API on code written
// here and linted as if it stood at a path in the tree: each rule fails on what it forbids and
// lets the allowed pass.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import type { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const RULES = [
  'no-restricted-imports',
  'no-restricted-syntax',
  'max-lines',
  'max-lines-per-function',
];
const eslint = new ESLint({
  cwd: root,
  // The rules under test only: the type-aware ones would need each snippet in a TypeScript program.
  ruleFilter: ({ ruleId }) => RULES.includes(ruleId),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
});

/** The messages of the rules under test for `code` linted as the file at `path` (from the root). */
async function lint(path: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${path}` });
  return result!.messages;
}

const USE_CASE = ['ctl', 'cni', 'kube-controllers', 'device-daemon', 'agent'] as const;
/** Each use-case package, with another one it must not import. */
const SIDEWAYS = USE_CASE.map((pkg, i) => [pkg, USE_CASE[(i + 1) % USE_CASE.length]!] as const);

describe('use-case packages never import each other', () => {
  it.each(SIDEWAYS)('@netledger/%s importing @netledger/%s fails', async (pkg, other) => {
    for (const code of [
      `import { x } from '@netledger/${other}';\nexport const y = x;\n`,
      `import type { X } from '@netledger/${other}/sub';\nexport type Y = X;\n`,
      `export const load = () => import('@netledger/${other}');\n`,
    ]) {
      for (const path of [`packages/${pkg}/src/sideways.ts`, `packages/${pkg}/src/x.test.ts`]) {
        expect(await lint(path, code)).toEqual([
          expect.objectContaining({
            ruleId: expect.stringMatching(/^no-restricted-(imports|syntax)$/),
            message: expect.stringContaining(`@netledger/${pkg} is a use-case package`),
          }),
        ]);
      }
    }
  });

  it('lets a use-case package import what is below it, and itself', async () => {
    const code = [
      "import { createIpamClient } from '@netledger/ipam-core';",
      "import { createDatastoreOpener } from '@netledger/datastore-config';",
      "import { serveAgentRequest } from '@netledger/cni/agent';",
      'export const all = [createIpamClient, createDatastoreOpener, serveAgentRequest];',
      '',
    ].join('\n');
    expect(await lint('packages/cni/src/fine.ts', code)).toEqual([]);
  });

  it('gives ctl the managed-Service rules from ipam-core, never from kube-controllers', async () => {
    const path = 'packages/ctl/src/commands/ipam-check.ts';
    const below =
      "import { isManagedLoadBalancer } from '@netledger/ipam-core/load-balancer';\nexport const m = isManagedLoadBalancer;\n";
    expect(await lint(path, below)).toEqual([]);
    for (const what of [
      '@netledger/kube-controllers',
      '@netledger/kube-controllers/load-balancer',
      '@netledger/cni',
    ]) {
      expect(await lint(path, `import { x } from '${what}';\nexport const y = x;\n`)).toMatchObject(
        [{ ruleId: 'no-restricted-imports' }],
      );
    }
  });

  it('still forbids enums there (the syntax rule keeps its base selectors)', async () => {
    expect(await lint('packages/agent/src/e.ts', 'export enum E { A }\n')).toMatchObject([
      { ruleId: 'no-restricted-syntax', message: 'Use a string-literal union, not an enum.' },
    ]);
  });
});

describe('apps open stores through @netledger/datastore-config only', () => {
  it.each([
    "import { createFileDatastore } from '@netledger/datastore-file';\nexport const f = createFileDatastore;\n",
    "import type { EtcdGatewayDatastoreOptions } from '@netledger/datastore-etcd/gateway';\nexport type O = EtcdGatewayDatastoreOptions;\n",
    "export const k = async () => (await import('@netledger/datastore-k8s')).kubeObjectReaderOf;\n",
  ])('an app importing a store package fails: %s', async (code) => {
    expect(await lint('apps/node-agent/src/main-x.ts', code)).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('Apps open stores through @netledger/datastore-config'),
      }),
    ]);
  });

  it('lets an app use the opener, and its tests seed a store directly', async () => {
    expect(
      await lint(
        'apps/cni-plugin/src/open-x.ts',
        "import { createDatastoreOpener } from '@netledger/datastore-config';\nimport { loadEtcdGrpc } from '@netledger/datastore-config/etcd-grpc';\nexport const o = [createDatastoreOpener, loadEtcdGrpc];\n",
      ),
    ).toEqual([]);
    expect(
      await lint(
        'apps/cni-plugin/test/x.int.test.ts',
        "import { createFileDatastore } from '@netledger/datastore-file';\nexport const f = createFileDatastore;\n",
      ),
    ).toEqual([]);
  });
});

/**
 * A module of one function of `bodyLines + 3` lines (its body is `bodyLines` statements), then
 * `extraLines` constants: `bodyLines + extraLines + 4` lines in all.
 */
function moduleOf(bodyLines: number, extraLines = 0): string {
  const body = Array.from({ length: bodyLines }, (_, i) => `  const v${i} = ${i};`);
  const extra = Array.from({ length: extraLines }, (_, i) => `export const c${i} = ${i};`);
  return [
    'export function f(): number {',
    ...body,
    `  return ${bodyLines > 0 ? 'v0' : '0'};`,
    '}',
    ...extra,
    '',
  ].join('\n');
}

describe('size limits: files of 400 lines, functions of 80, in production code', () => {
  it('fails on a function over 80 lines and a file over 400', async () => {
    expect(await lint('packages/cni/src/long.ts', moduleOf(78))).toMatchObject([
      { ruleId: 'max-lines-per-function' },
    ]);
    expect(await lint('packages/cni/src/big.ts', moduleOf(1, 397))).toMatchObject([
      { ruleId: 'max-lines' },
    ]);
  });

  it('lets 80 and 400 lines pass, and exempts tests and benchmarks', async () => {
    expect(await lint('packages/cni/src/fine.ts', moduleOf(77))).toEqual([]);
    expect(await lint('packages/cni/src/fine.ts', moduleOf(1, 396))).toEqual([]);
    for (const path of ['packages/cni/src/x.test.ts', 'packages/cni/bench/x.ts']) {
      expect(await lint(path, moduleOf(200, 400))).toEqual([]);
    }
  });
});
