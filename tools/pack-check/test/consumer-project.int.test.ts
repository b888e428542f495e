// Every publishable package packed with pnpm, checked, installed from its tarball into a scratch
// project outside the workspace, compiled against its published types and run with plain Node:
// autoAssign on the memory store and on a real etcd, through the public entry points only.
// Needs a built workspace (`pnpm build`; the root test command builds first), npm and the npm
// registry for third-party dependencies, and etcd.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EtcdFixture } from '@netledger/testkit';
import { createTempDir, startEtcd } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPackedPackage } from '../src/check-packed-package.js';
import { entryImportsSource, entrySpecifiers } from '../src/entry-imports.js';
import type { PackResult } from '../src/pack-packages.js';
import { packPackage } from '../src/pack-packages.js';
import { listPublishablePackages } from '../src/publishable-packages.js';
import type { ScratchProject } from '../src/scratch-project.js';
import { createScratchProject } from '../src/scratch-project.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  license: string;
  devDependencies: Record<string, string>;
};
const expectations = {
  licenseId: rootManifest.license,
  licenseText: readFileSync(join(root, 'LICENSE'), 'utf8'),
};
const publishable = listPublishablePackages(root);

// The consumer's addresses: the only block of each pool, its first ordinals, with the block mask.
const EXPECTED_REPORT = {
  v4: ['10.244.0.0/26', '10.244.0.1/26'],
  v6: ['fd00:10::/122'],
  byHandle: ['10.244.0.0', '10.244.0.1', 'fd00:10::'],
};

/** One key's JSON value, read through etcd's own HTTP/JSON gateway (not through netledger). */
async function etcdValue(endpoint: string, key: string): Promise<unknown> {
  const res = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from(key).toString('base64') }),
  });
  const body = (await res.json()) as { kvs?: { value: string }[] };
  const value = body.kvs?.[0]?.value;
  return value === undefined ? undefined : JSON.parse(Buffer.from(value, 'base64').toString());
}

describe('the packed packages, used from a project outside the workspace', () => {
  let tmp: Awaited<ReturnType<typeof createTempDir>> | undefined;
  let etcd: EtcdFixture | undefined;
  const packs = new Map<string, PackResult>();
  let specifiers: string[] = [];
  let project: ScratchProject;

  beforeAll(async () => {
    tmp = await createTempDir('netledger-pack-check-');
    const tarballs = join(tmp.path, 'tarballs');
    const consumer = join(tmp.path, 'consumer');
    mkdirSync(tarballs);
    mkdirSync(consumer);
    for (const pkg of publishable) packs.set(pkg.manifest.name, await packPackage(pkg, tarballs));
    specifiers = [...packs.values()].flatMap((p) => entrySpecifiers(p.packed.manifest)).sort();
    project = await createScratchProject({
      dir: consumer,
      tarballs: [...packs.values()].map((p) => p.tarball),
      // With skipLibCheck off, @kubernetes/client-node's isomorphic-ws needs @types/ws, as it
      // would in any consumer of datastore-k8s or kube-controllers that checks library types.
      registryPackages: [
        `@types/node@${rootManifest.devDependencies['@types/node']}`,
        '@types/ws@8',
      ],
      sources: {
        'auto-assign.ts': readFileSync(join(here, '..', 'consumer', 'auto-assign.ts'), 'utf8'),
        'entries.ts': entryImportsSource(specifiers),
      },
    });
  }, 180_000);

  afterAll(async () => {
    await etcd?.stop();
    await tmp?.remove();
  });

  it('packs every non-private package, in a directory outside the workspace', () => {
    expect(relative(root, tmp!.path).startsWith('..')).toBe(true);
    expect([...packs.keys()]).toEqual(publishable.map((p) => p.manifest.name));
    expect([...packs.keys()]).toEqual(
      expect.arrayContaining([
        '@netledger/accounting',
        '@netledger/ipam-core',
        '@netledger/datastore-etcd',
      ]),
    );
  });

  it.each(publishable.map((p) => p.manifest.name))(
    '%s ships its types, exports map, README example and LICENSE',
    (name) => {
      expect(checkPackedPackage(packs.get(name)!.packed, expectations)).toEqual([]);
    },
  );

  it('every entry point type-checks against the published types and loads in plain Node', async () => {
    const counts = JSON.parse(await project.runCompiled('entries.ts')) as Record<string, number>;
    expect(Object.keys(counts).sort()).toEqual(specifiers);
    const empty = Object.entries(counts).filter(([, n]) => n === 0);
    expect(empty).toEqual([]);
  });

  it('autoAssign on the memory store', async () => {
    expect(JSON.parse(await project.runCompiled('auto-assign.ts', ['memory']))).toEqual(
      EXPECTED_REPORT,
    );
  });

  it('autoAssign on etcd, in Calico key layout', async () => {
    etcd = await startEtcd();
    const endpoint = etcd.endpoints[0]!;
    expect(JSON.parse(await project.runCompiled('auto-assign.ts', ['etcd', endpoint]))).toEqual(
      EXPECTED_REPORT,
    );
    expect(
      await etcdValue(endpoint, '/calico/ipam/v2/assignment/ipv4/block/10.244.0.0-26'),
    ).toMatchObject({
      cidr: '10.244.0.0/26',
      affinity: 'host:node-1',
      allocations: [0, 0, ...Array<null>(62).fill(null)],
      attributes: [{ handle_id: 'consumer.0' }],
    });
    expect(await etcdValue(endpoint, '/calico/ipam/v2/handle/consumer.0')).toMatchObject({
      block: { '10.244.0.0/26': 2, 'fd00:10::/122': 1 },
    });
  });
});
