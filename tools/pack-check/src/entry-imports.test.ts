import { describe, expect, it } from 'vitest';
import { entryImportsSource, entrySpecifiers } from './entry-imports.js';

describe('entrySpecifiers', () => {
  it('maps "." to the name and "./sub" to name/sub, sorted, skipping patterns', () => {
    const manifest = {
      name: '@netledger/ipam-core',
      version: '0.1.0',
      exports: { './block': {}, '.': {}, './adapter': {}, './internal/*': {} },
    };
    expect(entrySpecifiers(manifest)).toEqual([
      '@netledger/ipam-core',
      '@netledger/ipam-core/adapter',
      '@netledger/ipam-core/block',
    ]);
  });

  it('offers nothing without an exports map', () => {
    expect(entrySpecifiers({ name: 'x', version: '1.0.0' })).toEqual([]);
  });
});

describe('entryImportsSource', () => {
  it('imports each specifier as a namespace and counts its names', () => {
    const source = entryImportsSource(['@netledger/a', '@netledger/a/b']);
    expect(source).toContain("import * as entry0 from '@netledger/a';");
    expect(source).toContain("import * as entry1 from '@netledger/a/b';");
    expect(source).toContain("  '@netledger/a/b': Object.keys(entry1).length,");
  });
});
