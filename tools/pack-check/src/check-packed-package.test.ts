import { describe, expect, it } from 'vitest';
import type { PackedPackage } from './check-packed-package.js';
import { checkPackedPackage } from './check-packed-package.js';

const expectations = { licenseId: 'Apache-2.0', licenseText: 'Apache License\n' };

const good: PackedPackage = {
  manifest: {
    name: '@netledger/example',
    version: '0.1.0',
    type: 'module',
    license: 'Apache-2.0',
    exports: {
      '.': { source: './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
      './sub': { types: './dist/sub.d.ts', import: './dist/sub.js' },
    },
    dependencies: { '@netledger/ipam-core': '^0.1.0' },
  },
  files: [
    'LICENSE',
    'README.md',
    'dist/index.d.ts',
    'dist/index.js',
    'dist/sub.d.ts',
    'dist/sub.js',
    'package.json',
  ],
  readme: "# example\n\n```ts\nimport { x } from '@netledger/example';\n```\n",
  license: 'Apache License\n',
};

const withManifest = (m: Partial<PackedPackage['manifest']>): PackedPackage => ({
  ...good,
  manifest: { ...good.manifest, ...m },
});

describe('checkPackedPackage', () => {
  it('finds nothing wrong with a complete package (the source condition may point at src)', () => {
    expect(checkPackedPackage(good, expectations)).toEqual([]);
  });

  it('accepts an example importing a subpath', () => {
    const readme = "```ts\nimport { y } from '@netledger/example/sub';\n```\n";
    expect(checkPackedPackage({ ...good, readme }, expectations)).toEqual([]);
  });

  it.each<[string, PackedPackage, string]>([
    ['no exports map', withManifest({ exports: undefined }), 'no exports map with a "." entry'],
    [
      'an entry without types',
      withManifest({ exports: { '.': { default: './dist/index.js' } } }),
      'exports["."] has no "types" condition naming a .d.ts file',
    ],
    [
      'an entry without a runtime condition',
      withManifest({ exports: { '.': { types: './dist/index.d.ts' } } }),
      'exports["."] has no runtime condition (default, import, node)',
    ],
    [
      'a string entry',
      withManifest({ exports: { '.': './dist/index.js' } }),
      'exports["."] is not a conditions object with types',
    ],
    [
      'a target missing from the tarball',
      { ...good, files: good.files.filter((f) => f !== 'dist/sub.js') },
      'exports["./sub"].import names ./dist/sub.js, which is not in the tarball',
    ],
    ['CommonJS', withManifest({ type: undefined }), 'package.json "type" is not "module"'],
    ['no README', { ...good, readme: undefined }, 'no README.md'],
    [
      'a README without an example',
      { ...good, readme: '# example\n\n```sh\nnpm i @netledger/example\n```\n' },
      'README.md has no ts/js example importing @netledger/example',
    ],
    [
      'a README whose example imports another package',
      { ...good, readme: "```ts\nimport { x } from '@netledger/other';\n```\n" },
      'README.md has no ts/js example importing @netledger/example',
    ],
    [
      'another license',
      withManifest({ license: 'MIT' }),
      'package.json license is MIT, not Apache-2.0',
    ],
    ['no LICENSE file', { ...good, license: undefined }, 'no LICENSE file'],
    [
      'a LICENSE of its own',
      { ...good, license: 'MIT License\n' },
      'LICENSE differs from the root LICENSE',
    ],
    [
      'a workspace range left',
      withManifest({ dependencies: { '@netledger/ipam-core': 'workspace:^' } }),
      'dependencies.@netledger/ipam-core is still workspace:^',
    ],
    [
      'test files',
      { ...good, files: [...good.files, 'dist/block.test.js', 'dist/test-builders.js'] },
      'ships test files: dist/block.test.js, dist/test-builders.js',
    ],
  ])('reports %s', (_what, packed, problem) => {
    expect(checkPackedPackage(packed, expectations)).toEqual([problem]);
  });
});
