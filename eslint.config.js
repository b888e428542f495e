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

// The use-case packages: each serves its entry points over ipam-core and the stores' ports; none
// builds on another (what two of them share moves below both).
const USE_CASE_PACKAGES = ['ctl', 'cni', 'kube-controllers', 'device-daemon', 'agent'];
const importsOf = (pkg) => [`@netledger/${pkg}`, `@netledger/${pkg}/*`];
// Syntax refused everywhere; a config object that refuses more repeats these (a later object's
// options replace an earlier one's).
const NO_ENUMS_OR_NAMESPACES = [
  { selector: 'TSEnumDeclaration', message: 'Use a string-literal union, not an enum.' },
  { selector: 'TSModuleDeclaration[kind="namespace"]', message: 'No namespaces.' },
];
/**
 * `import('@netledger/<pkg>')` of a package in `packages` (no-restricted-imports sees static
 * imports only). esquery's regular expressions cannot hold a slash: `\u002f` is one.
 */
const noDynamicImportOf = (packages, message) => ({
  selector: `ImportExpression[source.value=/^@netledger\\u002f(${packages.join('|')})($|\\u002f)/]`,
  message,
});
const sidewaysMessage = (pkg, others) =>
  `@netledger/${pkg} is a use-case package: it imports no other (${others.join(', ')}); move what both need below them.`;
const sidewaysRules = USE_CASE_PACKAGES.map((pkg) => {
  const others = USE_CASE_PACKAGES.filter((other) => other !== pkg);
  const message = sidewaysMessage(pkg, others);
  return {
    files: [`packages/${pkg}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: others.flatMap(importsOf), message }] },
      ],
      'no-restricted-syntax': [
        'error',
        ...NO_ENUMS_OR_NAMESPACES,
        noDynamicImportOf(others, message),
      ],
    },
  };
});
// The stores themselves: what an app opens goes through @netledger/datastore-config's opener.
const STORE_PACKAGES = ['datastore-file', 'datastore-etcd', 'datastore-k8s'];
const APP_STORE_MESSAGE =
  'Apps open stores through @netledger/datastore-config (its opener: open, repair, kubernetesReaderOf, defaultFilePath), never a datastore-* package itself.';

// Tests, test helpers (testkit, test-*.ts, test-support/) and benchmarks: exempt from the rules
// that shape production code.
const TEST_AND_BENCH = [
  '**/*.test.ts',
  '**/test-*.ts',
  '**/test/**',
  '**/test-support/**',
  'packages/testkit/**',
  '**/bench/**',
  'tools/bench/**',
];

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
      'no-restricted-syntax': ['error', ...NO_ENUMS_OR_NAMESPACES],
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
  ...sidewaysRules,
  {
    // Apps wire config, adapters and exit codes; production code only (tests seed stores directly).
    files: ['apps/*/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test-*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: STORE_PACKAGES.flatMap(importsOf), message: APP_STORE_MESSAGE }] },
      ],
      'no-restricted-syntax': [
        'error',
        ...NO_ENUMS_OR_NAMESPACES,
        noDynamicImportOf(STORE_PACKAGES, APP_STORE_MESSAGE),
      ],
    },
  },
  {
    // STYLE: three positional parameters at most; more take an options object. Production code
    // only: tests, test helpers (testkit, test-*.ts, test-support/) and benchmarks are exempt.
    files: ['**/*.ts'],
    ignores: TEST_AND_BENCH,
    rules: { '@typescript-eslint/max-params': ['error', { max: 3 }] },
  },
  {
    // STYLE: files a reader holds in one sitting, functions a reader holds in view. Production
    // code only (as above); generated code, were there any, would be listed here too.
    files: ['**/*.ts'],
    ignores: TEST_AND_BENCH,
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
);
