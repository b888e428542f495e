// The repository's lint rules (eslint.config.js) run through ESLint's Node API on code written
// here and linted as if it stood at a path in the tree: each rule fails on what it forbids and
// lets the allowed pass.
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import type { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const RULES = ['no-restricted-imports', 'no-restricted-syntax'];
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

  it('lets ipam check read the managed-Service rules from kube-controllers, and nothing else (restructured separately)', async () => {
    const path = 'packages/ctl/src/commands/ipam-check.ts';
    const allowed =
      "import { isManaged } from '@netledger/kube-controllers/load-balancer';\nexport const m = isManaged;\n";
    expect(await lint(path, allowed)).toEqual([]);
    for (const what of [
      '@netledger/kube-controllers',
      '@netledger/kube-controllers/gc',
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
