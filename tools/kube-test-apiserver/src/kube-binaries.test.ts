import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buildLdflags,
  cacheKey,
  cacheRoot,
  findGoModuleDir,
  KUBE_BINARIES,
  pinnedKubernetesVersion,
  resolveKubeApiserver,
  resolveKubeBinaries,
} from './kube-binaries.js';

describe('the pin', () => {
  it('is k8s.io/kubernetes v1.32.x with every staging module at the matching v0.32.x', async () => {
    const goMod = await readFile(join(findGoModuleDir(), 'go.mod'), 'utf8');
    const version = pinnedKubernetesVersion(goMod);
    expect(version).toMatch(/^v1\.32\.\d+$/);
    const staging = [...goMod.matchAll(/^\s*k8s\.io\/(\S+) => k8s\.io\/\1 (\S+)$/gm)];
    expect(staging.length).toBeGreaterThanOrEqual(30);
    // The one exception, commented in go.mod: the proxy has no zip of endpointslice v0.32.13.
    const expected = (module: string): string =>
      module === 'endpointslice' ? 'v0.32.12' : version.replace(/^v1\./, 'v0.');
    for (const [, module, v] of staging) expect(v).toBe(expected(module!));
  });

  it('builds every binary the test cluster runs from that one k8s.io/kubernetes', async () => {
    const goMod = await readFile(join(findGoModuleDir(), 'go.mod'), 'utf8');
    const tools = /^tool \(\n([^)]*)\)/m.exec(goMod)?.[1]?.trim().split(/\s+/);
    expect(tools?.sort()).toEqual(
      KUBE_BINARIES.filter((b) => b !== 'crictl')
        .map((b) => `k8s.io/kubernetes/cmd/${b}`)
        .sort(),
    );
    const crictl = await readFile(join(findGoModuleDir(), 'crictl', 'go.mod'), 'utf8');
    expect(crictl).toMatch(/^tool sigs\.k8s\.io\/cri-tools\/cmd\/crictl$/m);
    expect(crictl).not.toMatch(/k8s\.io\/kubernetes /);
  });
});

describe('pure helpers', () => {
  it('reads the version from a require line or block, with or without a comment', () => {
    expect(pinnedKubernetesVersion('require k8s.io/kubernetes v1.32.13\n')).toBe('v1.32.13');
    expect(pinnedKubernetesVersion('require (\n\tk8s.io/kubernetes v1.32.2 // indirect\n)')).toBe(
      'v1.32.2',
    );
    expect(() => pinnedKubernetesVersion('module x\n')).toThrow(/does not require/);
  });

  it('keys the cache on every pinning file', () => {
    const key = cacheKey(['mod', 'sum', 'crictl-mod', 'crictl-sum']);
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(cacheKey(['mod', 'sum', 'crictl-mod', 'crictl-sum'])).toBe(key);
    expect(cacheKey(['mod2', 'sum', 'crictl-mod', 'crictl-sum'])).not.toBe(key);
    expect(cacheKey(['mod', 'sum', 'crictl-mod', 'crictl-sum2'])).not.toBe(key);
    // Texts are separated: moving a byte from one file to the next is another pin.
    expect(cacheKey(['mo', 'dsum', 'crictl-mod', 'crictl-sum'])).not.toBe(key);
  });

  it('caches under XDG_CACHE_HOME, else ~/.cache', () => {
    expect(cacheRoot({ XDG_CACHE_HOME: '/x' }, '/home/u')).toBe('/x/netledger/kube-apiserver');
    expect(cacheRoot({}, '/home/u')).toBe('/home/u/.cache/netledger/kube-apiserver');
  });

  it('stamps the version into both version packages', () => {
    const flags = buildLdflags('v1.32.13');
    expect(flags).toContain('-X k8s.io/component-base/version.gitVersion=v1.32.13');
    expect(flags).toContain('-X k8s.io/client-go/pkg/version.gitMinor=32');
  });
});

describe('resolveKubeApiserver', () => {
  let dir: string;
  const lines: string[] = [];
  const log = (line: string): void => void lines.push(line);
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kube-binary-test-'));
    lines.length = 0;
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uses KUBE_APISERVER when it is executable', async () => {
    const bin = join(dir, 'kube-apiserver');
    await writeFile(bin, '#!/bin/sh\n');
    await chmod(bin, 0o755);
    await expect(
      resolveKubeApiserver({ env: { KUBE_APISERVER: bin }, home: dir, log }),
    ).resolves.toEqual({ path: bin, source: 'KUBE_APISERVER' });
  });

  it('refuses a KUBE_APISERVER that is not there', async () => {
    await expect(
      resolveKubeApiserver({ env: { KUBE_APISERVER: join(dir, 'nope') }, home: dir, log }),
    ).rejects.toMatchObject({ code: 'BAD_BINARY', message: expect.stringContaining('nope') });
  });

  it('uses the cached binaries of the pin without building', async () => {
    const goDir = await fakeModule(dir);
    const env = { XDG_CACHE_HOME: join(dir, 'cache'), GO: '/nonexistent/go' };
    const entry = await fakeCacheEntry(env, goDir);
    await expect(
      resolveKubeApiserver({ env, home: dir, log, goModuleDir: goDir }),
    ).resolves.toEqual({
      path: join(entry, 'kube-apiserver'),
      source: 'cache',
      version: 'v1.32.13',
    });
    await expect(resolveKubeBinaries({ env, home: dir, log, goModuleDir: goDir })).resolves.toEqual(
      {
        dir: entry,
        paths: Object.fromEntries(KUBE_BINARIES.map((b) => [b, join(entry, b)])),
        source: 'cache',
        version: 'v1.32.13',
      },
    );
  });

  it('builds again when an entry lacks one of the binaries', async () => {
    const goDir = await fakeModule(dir);
    const env = { XDG_CACHE_HOME: join(dir, 'cache'), GO: '/nonexistent/go' };
    const entry = await fakeCacheEntry(env, goDir);
    await rm(join(entry, 'kubelet'));
    await expect(
      resolveKubeBinaries({ env, home: dir, log, goModuleDir: goDir }),
    ).rejects.toMatchObject({ code: 'NO_GO_TOOLCHAIN' });
  });

  it('without a cached binary and without Go, says what to install', async () => {
    const goDir = await fakeModule(dir);
    const env = { XDG_CACHE_HOME: join(dir, 'cache'), GO: '/nonexistent/go' };
    for (const build of [true, false]) {
      await expect(
        resolveKubeApiserver({ env, home: dir, log, goModuleDir: goDir, build }),
      ).rejects.toMatchObject({
        code: 'NO_GO_TOOLCHAIN',
        message: expect.stringMatching(/Install Go.*KUBE_APISERVER/s),
      });
    }
  });

  it('with build: false and Go present, says how to build it', async () => {
    const goDir = await fakeModule(dir);
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') };
    delete env.KUBE_APISERVER;
    await expect(
      resolveKubeApiserver({ env, home: dir, log, goModuleDir: goDir, build: false }),
    ).rejects.toMatchObject({
      code: 'NOT_BUILT',
      message: expect.stringMatching(/v1\.32\.13 is not built yet.*kube-test-apiserver --build/s),
    });
  });

  it("a failed build reports go's error and leaves nothing in the cache", async () => {
    // Its go.sum lacks k8s.io/kubernetes, which `go build -mod=readonly` refuses at once.
    const goDir = await fakeModule(dir);
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') };
    delete env.KUBE_APISERVER;
    await expect(
      resolveKubeApiserver({ env, home: dir, log, goModuleDir: goDir }),
    ).rejects.toMatchObject({ code: 'BUILD_FAILED', message: expect.stringContaining('go build') });
    const entry = cacheRoot(env, dir);
    const [key] = await readdir(entry);
    expect(await readdir(join(entry, key!))).toEqual([]);
  });
});

/** A Go module like ours (with crictl's nested) that requires k8s.io/kubernetes but has an empty go.sum. */
async function fakeModule(dir: string): Promise<string> {
  const goDir = join(dir, 'go');
  await mkdir(join(goDir, 'crictl'), { recursive: true });
  await writeFile(
    join(goDir, 'go.mod'),
    'module example.test/fake\n\ngo 1.24.0\n\nrequire k8s.io/kubernetes v1.32.13\n',
  );
  await writeFile(join(goDir, 'go.sum'), 'sum\n');
  await writeFile(join(goDir, 'crictl', 'go.mod'), 'module example.test/crictl\n\ngo 1.24.0\n');
  await writeFile(join(goDir, 'crictl', 'go.sum'), '');
  return goDir;
}

/** The cache entry of `goDir`'s pin with an executable stand-in for every binary. */
async function fakeCacheEntry(env: NodeJS.ProcessEnv, goDir: string): Promise<string> {
  const pins = await Promise.all(
    ['go.mod', 'go.sum', 'crictl/go.mod', 'crictl/go.sum'].map((f) =>
      readFile(join(goDir, f), 'utf8'),
    ),
  );
  const entry = join(cacheRoot(env, join(goDir, '..')), cacheKey(pins));
  await mkdir(entry, { recursive: true });
  for (const name of KUBE_BINARIES) {
    await writeFile(join(entry, name), '#!/bin/sh\n');
    await chmod(join(entry, name), 0o755);
  }
  return entry;
}
