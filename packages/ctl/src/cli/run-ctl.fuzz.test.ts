// Fuzzing netledgerctl (issue #20): any argv, and manifests of any shape for the manifest verbs,
// run in-process on a memory store. Each run returns an exit code; an error is one line
// `Error: <message>` with no JavaScript engine text or stack; and a refused command changes nothing
// in the store (a manifest run that fails part way names how many resources it did before).
import { createDatastoreOpener } from '@netledger/datastore-config';
import type { Datastore, Kind } from '@netledger/ipam-core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { memoryStore, testClock } from '../test-support/seed.js';
import type { CtlIo } from './command-spec.js';
import { COMMANDS } from './commands.js';
import { runCtl } from './run-ctl.js';

const RUNS = 10_000;
/**
 * A property of RUNS cases is CPU work: a few seconds alone, several times that while the suite
 * runs two packages at a time on two cores. The bound is for a hang, not for speed.
 */
const PROPERTY_TIMEOUT_MS = 180_000;
const ENGINE_ERROR =
  /Cannot read properties|is not a function|is not iterable|is not defined|Cannot convert|Invalid array length|Maximum call stack|Cannot mix BigInt|Do not know how to serialize|\n\s+at /;
const KINDS: readonly Kind[] = [
  'IPPool',
  'IPReservation',
  'Node',
  'IPAMConfig',
  'IPAMBlock',
  'BlockAffinity',
  'IPAMHandle',
  'ClusterInformation',
];
const PARTIAL = /\[(created|applied|replaced|deleted|read): /;

/** Repairs for a user whose home holds no store. */
const opener = createDatastoreOpener({
  user: () => ({ uid: 1000, home: '/nonexistent-home' }),
  etcd: { transport: 'http', loadGrpc: () => Promise.reject(new Error('no gRPC in the fuzz')) },
});

let store: ReturnType<typeof memoryStore>;
let datastore: Datastore;

beforeAll(async () => {
  store = memoryStore();
  const { ipam } = store;
  await ipam.pools.create({ metadata: { name: 'p4' }, spec: { cidr: '10.0.0.0/24' } });
  await ipam.pools.create({ metadata: { name: 'p6' }, spec: { cidr: 'fd00::/120' } });
  await ipam.reservations.create({
    metadata: { name: 'r' },
    spec: { reservedCIDRs: ['10.0.0.8/30'] },
  });
  await ipam.nodes.create({ metadata: { name: 'node1' } });
  await ipam.autoAssign({ num4: 3, hostname: 'node1', handleId: 'h1', intendedUse: 'Workload' });
  // The CLI closes what it opens: this view of the shared store survives that.
  datastore = Object.assign(Object.create(store.datastore) as Datastore, {
    close: () => Promise.resolve(),
  });
});

async function dump(): Promise<string> {
  const lists = await Promise.all(KINDS.map((kind) => store.datastore.list({ kind })));
  return JSON.stringify(
    lists.map((l) => l.items.map((kv) => [kv.key, kv.revision, kv.value])),
    (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v),
  );
}

/** The memory store's global revision: any write at all moves it. */
async function storeRevision(): Promise<string> {
  return (await store.datastore.list({ kind: 'IPAMConfig' })).revision;
}

/** Runs netledgerctl on the shared store; files are `files`, others do not exist. */
async function run(argv: readonly string[], files: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CtlIo = {
    argv,
    env: {},
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readFile: (p) =>
      p in files
        ? Promise.resolve(files[p]!)
        : Promise.reject(Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' })),
    writeFile: () => Promise.resolve(),
    readStdin: () => Promise.resolve(files['-'] ?? ''),
    defaultConfigFiles: [],
    stderrIsTty: false,
    openDatastore: () => Promise.resolve(datastore),
    kubernetesReaderOf: () => Promise.resolve(undefined),
    repairDatastore: (config, options) => opener.repair(config, options),
    clock: testClock(),
  };
  const code = await runCtl(io);
  return { code, stdout, stderr };
}

/** The outcome is clear, and a refusal changed nothing (unless it says what it did). */
async function expectClearOutcome(argv: readonly string[], files: Record<string, string> = {}) {
  const before = await storeRevision();
  const { code, stderr } = await run(argv, files);
  expect(Number.isInteger(code) && code >= 0 && code < 128).toBe(true);
  if (stderr !== '') {
    expect(stderr).toMatch(/^Error: [^\n]+\n$/);
    expect(stderr).not.toMatch(ENGINE_ERROR);
    expect(code).not.toBe(0);
    if (!PARTIAL.test(stderr)) expect(await storeRevision()).toBe(before);
  }
  return { code, stderr };
}

const VALUES = [
  'p4',
  'p6',
  'new',
  'node1',
  'h1',
  'r',
  '10.0.0.0/24',
  '10.0.1.0/24',
  '10.0.0.1',
  '10.0.0.0/8',
  'fd00::1',
  'fd00:1::/120',
  '26',
  '0',
  '-1',
  '129',
  '1e3',
  '18446744073709551616',
  'all()',
  "has(x) && y == 'z'",
  '((',
  'Workload,Tunnel',
  'LoadBalancer',
  'Bogus',
  'yaml',
  'json',
  'wide',
  'table',
  'x.yaml',
  '-',
  '',
  ' ',
  '..',
  '/etc/passwd',
  'true',
  'false',
  '--',
];
const value = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...VALUES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** A token: a flag some command knows (with `=` or separate value), a value, or noise. */
const FLAGS = [
  ...new Set(
    COMMANDS.flatMap((c) =>
      Object.entries(c.options).flatMap(([n, o]) => [
        `--${n}`,
        ...(o.short ? [`-${o.short}`] : []),
      ]),
    ),
  ),
  '--help',
  '-c',
  '--config',
  '--bogus',
];
const token = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FLAGS) },
  { weight: 4, arbitrary: value },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...FLAGS), value).map(([f, v]) => `${f}=${v}`) },
);
const argvArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(fc.constantFrom(...COMMANDS.map((c) => c.path)), fc.array(token, { maxLength: 6 }))
      .map(([path, rest]) => [...path, ...rest]),
  },
  {
    weight: 1,
    arbitrary: fc.array(fc.oneof(token, fc.constantFrom('ipam', 'ippool')), { maxLength: 5 }),
  },
);

/** What a manifest file may hold: resources with damaged fields, in YAML or JSON, or junk. */
const RESOURCES: Record<string, unknown>[] = [
  {
    apiVersion: 'projectcalico.org/v3',
    kind: 'IPPool',
    metadata: { name: 'm4' },
    spec: { cidr: '10.0.2.0/24', blockSize: 28, nodeSelector: 'all()', allowedUses: ['Workload'] },
  },
  {
    apiVersion: 'projectcalico.org/v3',
    kind: 'IPReservation',
    metadata: { name: 'mr' },
    spec: { reservedCIDRs: ['10.0.0.16/30'] },
  },
  {
    apiVersion: 'projectcalico.org/v3',
    kind: 'Node',
    metadata: { name: 'mnode', labels: { rack: 'a' } },
    spec: {},
  },
  {
    apiVersion: 'projectcalico.org/v3',
    kind: 'IPAMConfiguration',
    metadata: { name: 'default' },
    spec: { strictAffinity: false, maxBlocksPerHost: 4, autoAllocateBlocks: true },
  },
];
const FIELD_PATHS: readonly (readonly string[])[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata'],
  ['metadata', 'name'],
  ['metadata', 'labels'],
  ['spec'],
  ['spec', 'cidr'],
  ['spec', 'blockSize'],
  ['spec', 'nodeSelector'],
  ['spec', 'allowedUses'],
  ['spec', 'disabled'],
  ['spec', 'reservedCIDRs'],
  ['spec', 'strictAffinity'],
  ['spec', 'maxBlocksPerHost'],
  ['spec', 'autoAllocateBlocks'],
  ['spec', 'ipCooldownSeconds'],
  ['spec', 'kubeVirtVMAddressPersistence'],
];
const badField = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    -1,
    1e21,
    2 ** 53 + 2,
    33,
    '',
    'garbage',
    '10.0.0.1/24',
    ['Bogus'],
    [1],
    { a: 1 },
    null,
    'List',
    'IPAMBlock',
  ),
);
function setAt(o: Record<string, unknown>, path: readonly string[], v: unknown) {
  const copy = { ...o };
  const [head, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) {
    if (v === undefined) delete copy[head];
    else copy[head] = v;
  } else {
    const inner = copy[head];
    copy[head] = setAt(
      typeof inner === 'object' && inner !== null && !Array.isArray(inner)
        ? (inner as Record<string, unknown>)
        : {},
      rest,
      v,
    );
  }
  return copy;
}
const resource = fc
  .tuple(
    fc.constantFrom(...RESOURCES),
    fc.array(fc.tuple(fc.constantFrom(...FIELD_PATHS), badField), { maxLength: 2 }),
  )
  .map(([r, edits]) => edits.reduce((acc, [p, v]) => setAt(acc, p, v), r));
const manifestText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(resource, { minLength: 1, maxLength: 3 })
      .map((rs) => rs.map((r) => stringify(r)).join('---\n')),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(resource, { minLength: 1, maxLength: 3 })
      .map((items) => JSON.stringify({ apiVersion: 'projectcalico.org/v3', kind: 'List', items })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(resource, fc.nat()).map(([r, n]) => {
      const t = stringify(r);
      return t.slice(0, n % (t.length + 1));
    }),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'a: &a [1]\nb: *a\nc: *nope\n',
      '!!binary Zm9v',
      '!!js/function "function(){}"',
      'kind: IPPool\nkind: IPPool\n',
      'kind: IPPool\nmetadata: {name: x}\nspec:\n\tcidr: 10.0.0.0/24\n',
      '--- \n---\n',
      '[]',
      '{"kind":"List","items":5}',
      'kind: IPPool\nmetadata:\n  name: big\nspec:\n  cidr: 10.0.3.0/24\n  blockSize: 18446744073709551616\n',
    ),
  },
);

describe('netledgerctl fuzzing', () => {
  // Found by the manifest property: ipam-core compared the stored pool with one that had no spec
  // and threw "Cannot read properties of undefined (reading 'cidr')".
  it('replacing a pool with a manifest that has no spec is refused as invalid, changing nothing', async () => {
    const before = await dump();
    const text = 'apiVersion: projectcalico.org/v3\nkind: IPPool\nmetadata:\n  name: p4\n';
    const { code, stderr } = await run(['replace', '-f', 'm.yaml'], { 'm.yaml': text });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Error: failed to replace IPPool "p4": .*cidr/i);
    expect(stderr).not.toMatch(ENGINE_ERROR);
    expect(await dump()).toBe(before);
  });

  it(
    `any argv: an exit code, a one-line error, and no change when refused (${RUNS} cases)`,
    async () => {
      let refused = 0;
      let succeeded = 0;
      await fc.assert(
        fc.asyncProperty(argvArb, async (argv) => {
          const { code, stderr } = await expectClearOutcome(argv, {
            'x.yaml': stringify(RESOURCES[0]),
          });
          if (stderr) refused++;
          if (code === 0) succeeded++;
        }),
        { numRuns: RUNS },
      );
      expect(refused).toBeGreaterThan(RUNS / 4);
      // Commands are reached and run, not only refused while parsing.
      expect(succeeded).toBeGreaterThan(RUNS / 100);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    `any manifest: a one-line error, and nothing written unless it says so (${RUNS} cases)`,
    async () => {
      let refused = 0;
      let succeeded = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('create', 'apply', 'replace', 'delete', 'get'),
          manifestText,
          async (verb, text) => {
            const { code, stderr } = await expectClearOutcome([verb, '-f', 'm.yaml'], {
              'm.yaml': text,
            });
            if (stderr) refused++;
            if (code === 0) succeeded++;
          },
        ),
        { numRuns: RUNS },
      );
      expect(refused).toBeGreaterThan(RUNS / 4);
      // Commands are reached and run, not only refused while parsing.
      expect(succeeded).toBeGreaterThan(RUNS / 100);
    },
    PROPERTY_TIMEOUT_MS,
  );
});
