import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The pure packages (accounting, ipam-core): no I/O, no store, no network library, nothing above
// them.
const NO_IO = [
  {
    group: [
      'node:*',
      'fs',
      'fs/*',
      'path',
      'os',
      'net',
      'http',
      'https',
      'child_process',
      'crypto',
    ],
    message: 'The pure packages do no I/O: take what you need as an argument.',
  },
  {
    group: ['@netledger/*', '!@netledger/accounting', '!@netledger/ipam-core'],
    message: 'The pure packages import nothing above them.',
  },
  {
    group: ['etcd3', '@grpc/*', '@kubernetes/*', 'netlink', 'node-netlink', 'prom-client'],
    message: 'The pure packages use no store or network library.',
  },
];
const NOT_IN_ACCOUNTING = {
  group: ['@netledger/ipam-core', '@netledger/ipam-core/*'],
  message: 'accounting is below ipam-core.',
};

// ipam-core's folders, bottom-up: a folder imports only from its own layer or the ones below.
const IPAM_CORE_LAYERS = [
  ['model', 'selector', 'load-balancer'],
  ['block', 'codec', 'pools'],
  ['config', 'datastore', 'utilization'],
  ['resources'],
  ['client'],
];
const layerRules = IPAM_CORE_LAYERS.flatMap((layer, i) => {
  const above = IPAM_CORE_LAYERS.slice(i + 1).flat();
  if (above.length === 0) return [];
  return layer.map((folder) => ({
    files: [`packages/ipam-core/src/${folder}/**/*.ts`],
    ignores: ['**/*.test.ts', '**/test-*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...NO_IO,
            {
              group: above.map((f) => `../${f}/*`),
              message: `ipam-core/${folder} is below ${above.join(', ')}: move what you need down, or the caller up.`,
            },
          ],
        },
      ],
    },
  }));
});

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'bin/**', '**/*.mjs', '**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/require-await': 'off',
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use a string-literal union, not an enum.' },
        { selector: 'TSModuleDeclaration[kind="namespace"]', message: 'No namespaces.' },
      ],
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts', 'packages/testkit/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // expect.any()/expect.stringContaining() are typed `any`.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    files: ['packages/ipam-core/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test-*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: NO_IO }] },
  },
  {
    files: ['packages/accounting/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test-*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...NO_IO, NOT_IN_ACCOUNTING] }] },
  },
  ...layerRules,
  {
    // STYLE: three positional parameters at most; more take an options object. Production code
    // only: tests, test helpers (testkit, test-*.ts, test-support/) and benchmarks are exempt.
    files: ['**/*.ts'],
    ignores: [
      '**/*.test.ts',
      '**/test-*.ts',
      '**/test/**',
      '**/test-support/**',
      'packages/testkit/**',
      '**/bench/**',
      'tools/bench/**',
    ],
    rules: { '@typescript-eslint/max-params': ['error', { max: 3 }] },
  },
);
