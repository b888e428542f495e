import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { createTempDir, findFreePort } from './fixtures.js';

/** How many times a start whose port was taken before etcd bound it is tried, with new ports. */
const START_ATTEMPTS = 3;

/** Options for {@link startEtcd}. */
export interface EtcdFixtureOptions {
  /** Cluster size (default 1). Members talk to each other over loopback. */
  readonly members?: number;
  /** The etcd binary (default: `$ETCD_BIN`, else `/usr/bin/etcd`). */
  readonly bin?: string;
  /** How long to wait for every member to report healthy (default 30 s). */
  readonly startTimeoutMs?: number;
  /**
   * Serve clients over TLS (default: plain http). Client URLs become `https://127.0.0.1:<port>`
   * (`--cert-file`, `--key-file`); peers still talk plain http. With `clientCertAuth`, etcd
   * requires a client certificate signed by the CA (`--trusted-ca-file`, `--client-cert-auth`),
   * and the fixture's own health and leader checks present `certFile`/`keyFile` as theirs, as
   * etcd's gateway does, so that certificate must allow client auth (`createTestCertificates`'s
   * server certificate does). The checks use no etcd user: enable auth after the start.
   */
  readonly tls?: EtcdFixtureTls;
  /**
   * Also serve clients on the IPv6 loopback, `[::1]`, at each member's client port (for tests of
   * IPv6 endpoints). The advertised client URL stays the `127.0.0.1` one. Default false.
   */
  readonly ipv6Loopback?: boolean;
  /** Picks each port (default: a free loopback port); tests hand out a taken one. */
  readonly findPort?: () => Promise<number>;
}

/** TLS files for {@link EtcdFixtureOptions.tls}. */
interface EtcdFixtureTls {
  /** The CA the fixture's checks trust for etcd, and (with `clientCertAuth`) etcd for clients. */
  readonly caFile: string;
  /** etcd's server certificate (for `127.0.0.1`) and its key. */
  readonly certFile: string;
  readonly keyFile: string;
  /** Require a client certificate signed by `caFile` (`--client-cert-auth`). Default false. */
  readonly clientCertAuth?: boolean;
}

/** One etcd process of a fixture. */
interface EtcdMember {
  readonly name: string;
  /** Client URL, e.g. `http://127.0.0.1:23790` (`https://` with `tls`). */
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  /** Where the member's stdout and stderr go. */
  readonly logFile: string;
  /** False once killed or stopped. */
  readonly running: boolean;
}

/** A running etcd (one member or a cluster) in a temporary directory. */
export interface EtcdFixture {
  /** The client URL of every member, in member order. */
  readonly endpoints: string[];
  readonly members: readonly EtcdMember[];
  /** SIGKILLs one member (it keeps its data dir, so {@link EtcdFixture.restart} can bring it back). */
  kill(memberIndex: number): Promise<void>;
  /** Starts a killed member again on the same ports and data, and waits until it is healthy. */
  restart(memberIndex: number): Promise<void>;
  /** The index of the current leader, waiting (up to 15 s) while an election is in progress. */
  leaderIndex(): Promise<number>;
  /** Kills every member and removes the temporary directory. Safe to call twice. */
  stop(): Promise<void>;
}

const MISSING = 'etcd not found: apt-get install -y etcd-server';

// Children of every fixture in this process: killed on exit even when a test forgets stop().
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function killAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

/** Go's GOARCH for this process, for etcd 3.4's `ETCD_UNSUPPORTED_ARCH` check. */
function goArch(): string | undefined {
  const map: Partial<Record<NodeJS.Architecture, string>> = {
    arm64: 'arm64',
    arm: 'arm',
    ia32: '386',
    s390x: 's390x',
    ppc64: 'ppc64le',
    riscv64: 'riscv64',
  };
  return map[process.arch];
}

/** The etcd binary to run; throws {@link MISSING} when there is none (tests fail, never skip). */
function resolveEtcdBin(bin?: string): string {
  const path = bin ?? process.env.ETCD_BIN ?? '/usr/bin/etcd';
  if (!existsSync(path)) throw new Error(`${MISSING} (looked for ${path})`);
  const probe = spawnSync(path, ['--version'], { encoding: 'utf8', env: etcdEnv() });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `${MISSING} (${path} --version failed: ${probe.error?.message ?? probe.stderr})`,
    );
  }
  return path;
}

function etcdEnv(): NodeJS.ProcessEnv {
  const arch = goArch();
  // Never pass ETCD_* through: etcd reads them as flags and would clash with ours.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_')),
  );
  return arch ? { ...env, ETCD_UNSUPPORTED_ARCH: arch } : env;
}

async function delay(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** The TLS material the fixture's own checks use, loaded once. */
interface CheckTls {
  readonly ca: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/**
 * One request to a member, given up after 1 s without progress: the parsed JSON of a 200 answer,
 * else undefined.
 * node:http(s) rather than fetch, which cannot take a CA or a client certificate.
 */
async function requestJson(
  url: string,
  tls: CheckTls | undefined,
  post?: string,
): Promise<unknown> {
  return new Promise((resolve) => {
    const options = { method: post === undefined ? 'GET' : 'POST', agent: false, timeout: 1000 };
    const req = tls ? https.request(url, { ...options, ...tls }) : http.request(url, options);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve(undefined));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => resolve(undefined));
      res.on('end', () => {
        try {
          resolve(
            res.statusCode === 200 ? JSON.parse(Buffer.concat(chunks).toString()) : undefined,
          );
        } catch {
          resolve(undefined);
        }
      });
    });
    req.end(post);
  });
}

async function isHealthy(clientUrl: string, tls: CheckTls | undefined): Promise<boolean> {
  const body = (await requestJson(`${clientUrl}/health`, tls)) as { health?: string } | undefined;
  return body?.health === 'true';
}

interface Status {
  header?: { member_id?: string };
  leader?: string;
}

async function memberStatus(
  clientUrl: string,
  tls: CheckTls | undefined,
): Promise<Status | undefined> {
  return (await requestJson(`${clientUrl}/v3/maintenance/status`, tls, '{}')) as Status | undefined;
}

/**
 * Starts Debian's etcd on free loopback ports in a temporary directory: one member, or a cluster
 * (`--initial-cluster`), and waits until every member is healthy. Fails (never skips) with
 * `etcd not found: apt-get install -y etcd-server` when the binary is missing. On a start failure
 * it kills what it started and throws with the tail of the member's log. With `tls`, clients are
 * served over https (see {@link EtcdFixtureOptions.tls}); a TLS file that cannot be read throws
 * before anything starts.
 */
export async function startEtcd(options: EtcdFixtureOptions = {}): Promise<EtcdFixture> {
  const bin = resolveEtcdBin(options.bin);
  const count = options.members ?? 1;
  const { tls } = options;
  const checkTls: CheckTls | undefined = tls && {
    ca: readFileSync(tls.caFile),
    ...(tls.clientCertAuth && { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }),
  };
  // etcd requires client certificates as soon as it has a --trusted-ca-file, so the CA goes to
  // etcd only with clientCertAuth; otherwise only the fixture's checks use it, to verify etcd.
  const tlsFlags = tls
    ? [
        `--cert-file=${tls.certFile}`,
        `--key-file=${tls.keyFile}`,
        ...(tls.clientCertAuth ? [`--trusted-ca-file=${tls.caFile}`, '--client-cert-auth'] : []),
      ]
    : [];
  const findPort = options.findPort ?? findFreePort;
  const dir = await createTempDir('netledger-etcd-');
  killAllOnExit();
  let specs: Omit<EtcdMember, 'running'>[] = [];
  let initialCluster = '';
  let children: (ChildProcess | undefined)[] = [];
  /** Free ports and fresh data dirs for every member (each start attempt has its own). */
  const planMembers = async (attempt: number): Promise<void> => {
    specs = [];
    for (let i = 0; i < count; i++) {
      const name = `m${i}`;
      specs.push({
        name,
        clientUrl: `${tls ? 'https' : 'http'}://127.0.0.1:${await findPort()}`,
        peerUrl: `http://127.0.0.1:${await findPort()}`,
        dataDir: join(dir.path, `start-${attempt}`, name),
        logFile: join(dir.path, `start-${attempt}`, `${name}.log`),
      });
    }
    await mkdir(join(dir.path, `start-${attempt}`), { recursive: true });
    initialCluster = specs.map((s) => `${s.name}=${s.peerUrl}`).join(',');
    children = specs.map(() => undefined);
  };

  const launch = (i: number, state: 'new' | 'existing'): void => {
    const s = specs[i]!;
    const log = openSync(s.logFile, 'a');
    const child = spawn(
      bin,
      [
        `--name=${s.name}`,
        `--data-dir=${s.dataDir}`,
        `--listen-client-urls=${
          options.ipv6Loopback
            ? `${s.clientUrl},${s.clientUrl.replace('127.0.0.1', '[::1]')}`
            : s.clientUrl
        }`,
        `--advertise-client-urls=${s.clientUrl}`,
        `--listen-peer-urls=${s.peerUrl}`,
        `--initial-advertise-peer-urls=${s.peerUrl}`,
        `--initial-cluster=${initialCluster}`,
        `--initial-cluster-state=${state}`,
        '--initial-cluster-token=netledger-test',
        '--logger=zap',
        '--log-outputs=stderr',
        ...tlsFlags,
      ],
      { stdio: ['ignore', log, log], env: etcdEnv() },
    );
    closeSync(log);
    live.add(child);
    child.on('exit', () => live.delete(child));
    children[i] = child;
  };

  const killMember = async (i: number): Promise<void> => {
    const child = children[i];
    children[i] = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  };

  const waitHealthy = async (indexes: number[]): Promise<void> => {
    const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
    for (const i of indexes) {
      for (;;) {
        const child = children[i];
        if (!child || child.exitCode !== null) {
          throw new Error(
            `etcd member ${specs[i]!.name} exited during start:\n${tail(specs[i]!.logFile)}`,
          );
        }
        if (await isHealthy(specs[i]!.clientUrl, checkTls)) break;
        if (Date.now() > deadline) {
          throw new Error(
            `etcd member ${specs[i]!.name} not healthy in time:\n${tail(specs[i]!.logFile)}`,
          );
        }
        await delay(100);
      }
    }
  };

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all(specs.map((_, i) => killMember(i)));
    await dir.remove();
  };

  // A port is free when chosen, not when etcd binds it: another process (an outgoing connection
  // takes an ephemeral port too) may get it first, and the member exits. Then start again.
  for (let attempt = 1; ; attempt++) {
    await planMembers(attempt);
    try {
      specs.forEach((_, i) => launch(i, 'new'));
      await waitHealthy(specs.map((_, i) => i));
      break;
    } catch (e) {
      await Promise.all(specs.map((_, i) => killMember(i)));
      const portTaken = specs.some((m) => tail(m.logFile).includes('address already in use'));
      if (portTaken && attempt < START_ATTEMPTS) continue;
      await stop();
      throw e;
    }
  }

  const checkIndex = (i: number): void => {
    if (!Number.isInteger(i) || i < 0 || i >= specs.length) throw new Error(`no etcd member ${i}`);
  };

  return {
    endpoints: specs.map((s) => s.clientUrl),
    get members() {
      return specs.map((s, i) => ({ ...s, running: children[i] !== undefined }));
    },
    async kill(i) {
      checkIndex(i);
      await killMember(i);
    },
    async restart(i) {
      checkIndex(i);
      await killMember(i);
      launch(i, 'existing');
      await waitHealthy([i]);
    },
    async leaderIndex() {
      const deadline = Date.now() + 15_000;
      for (;;) {
        for (let i = 0; i < specs.length; i++) {
          if (!children[i]) continue;
          const status = await memberStatus(specs[i]!.clientUrl, checkTls);
          const leader = status?.leader;
          if (!leader || leader === '0') continue;
          for (let j = 0; j < specs.length; j++) {
            if (!children[j]) continue;
            const status = await memberStatus(specs[j]!.clientUrl, checkTls);
            if (status?.header?.member_id === leader) return j;
          }
        }
        if (Date.now() > deadline) throw new Error('etcd cluster has no leader');
        await delay(100);
      }
    },
    stop,
  };
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '(no log)';
  }
}
