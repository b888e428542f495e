// Fuzzing the plugin's inputs: the CNI_* environment, CNI_ARGS, the network configuration on
// stdin, and whole invocations through runCniPlugin on a memory store. Every input is answered
// with a result or with a CniError carrying one of the plugin's codes and a message that is not a
// stack trace nor a JavaScript engine error (a TypeError leaking out as 999 is a defect, while
// the 999s calico-ipam itself returns are not), and a refused invocation leaves the store exactly
// as it was.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Datastore, Kind } from '@netledger/ipam-core';
import { parseCniArgs } from './cni-args.js';
import { CniError, CniErrorCode } from './cni-error.js';
import { parseCniRequest } from './cni-request.js';
import { parseNetConf } from './net-conf.js';
import { runCniPlugin } from './run-plugin.js';
import { baseConf, createHarness } from './test-plugin-harness.js';

const RUNS = 10_000;
const SPEC_CODES = new Set<number>(Object.values(CniErrorCode));
const STACK = /\n\s+at |\bat .*\.(ts|js):\d+/;
/** What V8 says when code trips over a value it did not expect. */
const ENGINE_ERROR =
  /Cannot read properties|is not a function|is not iterable|is not defined|Cannot convert|Invalid array length|Maximum call stack|Cannot mix BigInt|Invalid time value|undefined \(reading/;

/** An answer as the spec wants it: a known code, a plain message, no engine error. */
function expectClearAnswer(code: number, msg: string): void {
  expect(SPEC_CODES.has(code), `code ${code}: ${msg}`).toBe(true);
  expect(msg.length).toBeGreaterThan(0);
  expect(msg).not.toMatch(STACK);
  expect(msg).not.toMatch(ENGINE_ERROR);
}

/** A refusal: a CniError (not a TypeError wrapped as one) with a clear answer. */
function expectClearError(e: unknown): void {
  expect(e).toBeInstanceOf(CniError);
  const err = e as CniError;
  expectClearAnswer(err.code, err.message);
  const cause = err.cause;
  expect(cause instanceof TypeError || cause instanceof RangeError, String(cause)).toBe(false);
}

function outcome(run: () => unknown): void {
  try {
    run();
  } catch (e) {
    expectClearError(e);
  }
}

const COMMANDS = ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS', 'VERSION'];
const word = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,20}$/),
  fc.constantFrom('', '.', '..', 'eth0', 'a/b', 'x:y', 'a b', 'é', '\u0000', 'x'.repeat(300)),
);
const cidrish = fc.oneof(
  fc.constantFrom('10.1.0.0/24', 'fd00::/120', '10.1.0.0/33', '::/0', '1.2.3.4/-1', '/', 'x/y'),
  fc.tuple(fc.ipV4(), fc.integer({ min: -2, max: 40 })).map(([ip, n]) => `${ip}/${n}`),
  fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 130 })).map(([ip, n]) => `${ip}/${n}`),
  fc.string({ maxLength: 12 }),
);
const ip = fc.oneof(fc.ipV4(), fc.ipV6(), fc.string({ maxLength: 15 }), fc.constant('10.1.0.5'));
const cniArgs = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc
    .array(
      fc.oneof(
        fc
          .tuple(
            fc.constantFrom(
              'IgnoreUnknown',
              'K8S_POD_NAMESPACE',
              'K8S_POD_NAME',
              'K8S_POD_INFRA_CONTAINER_ID',
              'K8S_POD_UID',
              'IP',
              'Other',
            ),
            fc.oneof(word, ip, fc.constantFrom('1', 'true', 'False', 'maybe')),
          )
          .map(([k, v]) => `${k}=${v}`),
        fc.constantFrom('=', 'a==b', 'noequals', ';;'),
      ),
      { maxLength: 5 },
    )
    .map((pairs) => pairs.join(';')),
);
const env = fc.record(
  {
    CNI_COMMAND: fc.oneof(fc.constantFrom(...COMMANDS), word),
    CNI_CONTAINERID: word,
    CNI_NETNS: fc.oneof(word, fc.constant('/var/run/netns/x')),
    CNI_IFNAME: word,
    CNI_ARGS: cniArgs,
    CNI_PATH: fc.oneof(word, fc.constant('/opt/cni/bin')),
    DATASTORE_TYPE: fc.constantFrom('file', 'etcdv3', 'kubernetes', 'nope', ''),
    ETCD_ENDPOINTS: fc.oneof(word, fc.constant('http://127.0.0.1:2379')),
  },
  { requiredKeys: [] },
);

const anyJson = fc.jsonValue({ maxDepth: 3 });
/** The IPAM section: each key absent, well-formed, or any JSON. */
const ipamSection = fc.record(
  {
    type: fc.oneof(fc.constant('netledger-ipam'), anyJson),
    assign_ipv4: fc.oneof(fc.constantFrom('true', 'false'), anyJson),
    assign_ipv6: fc.oneof(fc.constantFrom('true', 'false'), anyJson),
    ipv4_pools: fc.oneof(fc.array(cidrish, { maxLength: 3 }), anyJson),
    ipv6_pools: fc.oneof(fc.array(cidrish, { maxLength: 3 }), anyJson),
    nodename: fc.oneof(word, anyJson),
    datastore_type: fc.oneof(fc.constantFrom('file', 'etcdv3', 'kubernetes', 'bogus'), anyJson),
    etcd_endpoints: fc.oneof(fc.constantFrom('http://127.0.0.1:2379', 'not a url', ''), anyJson),
    log_level: fc.oneof(fc.constantFrom('debug', 'warn', 'loud'), anyJson),
    mode: fc.oneof(fc.constantFrom('gateway', 'per-container', 'other'), anyJson),
    subnet: fc.oneof(cidrish, anyJson),
    gateway: fc.oneof(ip, anyJson),
    feature_control: anyJson,
    path_roots: fc.oneof(fc.constant(['/tmp']), anyJson),
  },
  { requiredKeys: [] },
);
const netconf = fc.record(
  {
    cniVersion: fc.oneof(fc.constantFrom('0.3.1', '0.4.0', '1.0.0', '1.1.0', '2.0.0'), anyJson),
    name: fc.oneof(fc.constant('net1'), word, anyJson),
    type: fc.oneof(fc.constantFrom('bridge', 'calico', 'macvlan', 'netledger-ipam'), anyJson),
    ipam: fc.oneof(ipamSection, anyJson),
    prevResult: fc.oneof(
      fc.record({
        ips: fc.array(fc.record({ address: fc.oneof(cidrish, anyJson) }), { maxLength: 2 }),
      }),
      anyJson,
    ),
    'cni.dev/valid-attachments': fc.oneof(
      fc.array(fc.record({ containerID: fc.oneof(word, anyJson), ifname: word }), { maxLength: 2 }),
      anyJson,
    ),
  },
  { requiredKeys: [] },
);
/** stdin: a config object, its text cut short, or anything at all. */
const stdin = fc.oneof(
  { weight: 6, arbitrary: netconf.map((c) => JSON.stringify(c)) },
  {
    weight: 1,
    arbitrary: fc.tuple(netconf, fc.nat()).map(([c, n]) => JSON.stringify(c).slice(0, n % 200)),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 100 }) },
);

const KINDS: readonly Kind[] = [
  'IPPool',
  'IPReservation',
  'Node',
  'ClusterInformation',
  'IPAMConfig',
  'IPAMBlock',
  'BlockAffinity',
  'IPAMHandle',
];
/** Every object of the store with its revision, and the store revision, as text. */
async function dump(ds: Datastore): Promise<string> {
  const lists = await Promise.all(KINDS.map((kind) => ds.list({ kind })));
  return JSON.stringify(lists, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

describe('CNI input fuzzing', () => {
  it(`parseCniRequest: any CNI_* environment (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(env, (e) => outcome(() => parseCniRequest(e))),
      { numRuns: RUNS },
    );
  });

  it(`parseCniArgs: any CNI_ARGS (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(cniArgs, (a) => outcome(() => parseCniArgs(a))),
      { numRuns: RUNS },
    );
  });

  it(`parseNetConf: any network configuration text (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(stdin, env, (text, e) => outcome(() => parseNetConf(text, e))),
      { numRuns: RUNS },
    );
  });

  it(`runCniPlugin on a memory store: answers every invocation; a refusal changes nothing (${RUNS} cases)`, async () => {
    const h = await createHarness({ pools: ['10.1.0.0/16', 'fd00::/112'] });
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(env, stdin, fc.boolean(), async (e, text, valid) => {
        // Half the cases start from a valid request and fuzz one part, so commands get deep.
        const invocationEnv = valid
          ? {
              CNI_COMMAND: 'ADD',
              CNI_CONTAINERID: 'c1',
              CNI_NETNS: '/x',
              CNI_IFNAME: 'eth0',
              CNI_PATH: '/p',
              ...e,
            }
          : e;
        const before = await dump(h.ds);
        const result = await runCniPlugin(
          {
            env: invocationEnv,
            stdin: valid ? JSON.stringify({ ...baseConf(), ...safeParse(text) }) : text,
          },
          {
            openDatastore: async () => sharedStore(h.ds),
            readFile: async () => undefined,
            osHostname: () => 'os-host',
            acquireLock: async () => ({ release: async () => undefined }),
          },
        );
        if (result.exitCode === 1) {
          refused++;
          const json = JSON.parse(result.stdout) as { code: number; msg: string };
          expectClearAnswer(json.code, json.msg);
          expect(await dump(h.ds)).toBe(before);
        }
      }),
      { numRuns: RUNS },
    );
    // Most inputs are refused, and enough get through to exercise the commands themselves.
    expect(refused).toBeGreaterThan(RUNS / 2);
    expect(RUNS - refused).toBeGreaterThan(RUNS / 100);
    expect((await h.ds.list({ kind: 'IPAMHandle' })).items.length).toBeGreaterThan(0);
  }, 120_000);
});

function safeParse(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The harness's store, with close() a no-op so it outlives each invocation. */
function sharedStore(ds: Datastore): Datastore {
  return new Proxy(ds, {
    get: (t, k, r) => (k === 'close' ? async () => undefined : (Reflect.get(t, k, r) as unknown)),
  });
}
