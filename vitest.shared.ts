import { defineConfig } from 'vitest/config';

/** Shared vitest settings: resolve workspace packages to their TypeScript source. */
export default defineConfig({
  resolve: { conditions: ['source', 'import', 'default'] },
  ssr: { resolve: { conditions: ['source', 'import', 'default'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.vitest-results.json' }]],
  },
});
