// Where one request's time goes, through the agent on the file store: runs netledger-node
// in-process with its file calls stamped (node:fs, sync and promise APIs, file handles), sends
// sequential ADDs then DELs through an installed plugin's static client, and prints,
// per command, the medians of: the client's wall time, the agent's (request in, answer out), and
// within the agent the time and count of the host lock's file calls, the store lock's, the store's
// reads, its writes and each fsync, the rest being JavaScript. A measuring tool, not a benchmark:
// `node ../../scripts/run-ts.mjs bench/trace-request.ts [ROUNDS]` after `pnpm build`.
import { createRequire } from 'node:module';
import { spawn, spawnSync } from 'node:child_process';
import { Server as HttpServer, ServerResponse } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import type * as FsModule from 'node:fs';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workspaceRoot } from '@netledger/bench';

// The CommonJS object, whose properties can be replaced (then synced into the ES namespaces).
const fs = createRequire(import.meta.url)('node:fs') as typeof FsModule;

interface Stamp {
  readonly at: number;
  readonly ms: number;
  readonly what: string;
  readonly path: string;
}
const stamps: Stamp[] = [];
const fdPaths = new Map<number, string>();
const describe = (arg: unknown): string =>
  typeof arg === 'string'
    ? arg
    : typeof arg === 'number'
      ? (fdPaths.get(arg) ?? `fd${arg}`)
      : Buffer.isBuffer(arg)
        ? arg.toString()
        : '';

/** Replaces `obj[name]` by a version that records its calls (sync or promise). */
function stamp(obj: Record<string, unknown>, name: string, label = name): void {
  const orig = obj[name];
  if (typeof orig !== 'function') return;
  obj[name] = function (this: unknown, ...args: unknown[]) {
    const at = performance.now();
    const fd = (this as { fd?: unknown } | undefined)?.fd;
    const path =
      label.startsWith('fh.') && typeof fd === 'number' ? describe(fd) : describe(args[0]);
    const done = (): void =>
      void stamps.push({ at, ms: performance.now() - at, what: label, path });
    const r = (orig as (...a: unknown[]) => unknown).apply(this, args);
    if (r instanceof Promise) {
      return r.then(
        (v: unknown) => {
          if (name === 'open' && v && typeof (v as { fd?: number }).fd === 'number')
            fdPaths.set((v as { fd: number }).fd, path);
          done();
          return v;
        },
        (e: unknown) => {
          done();
          throw e;
        },
      );
    }
    if (name === 'openSync' && typeof r === 'number') fdPaths.set(r, path);
    done();
    return r;
  };
}

const SYNC = [
  'openSync',
  'readFileSync',
  'writeFileSync',
  'fsyncSync',
  'fdatasyncSync',
  'linkSync',
  'unlinkSync',
  'renameSync',
  'statSync',
  'fstatSync',
  'lstatSync',
  'readdirSync',
  'readlinkSync',
  'mkdirSync',
  'closeSync',
  'realpathSync',
  'appendFileSync',
];
const PROMISES = [
  'open',
  'readFile',
  'writeFile',
  'link',
  'unlink',
  'rename',
  'stat',
  'lstat',
  'readdir',
  'readlink',
  'mkdir',
  'realpath',
  'appendFile',
];
for (const n of SYNC) stamp(fs, n);
for (const n of PROMISES) stamp(fs.promises, n);
syncBuiltinESMExports();
// FileHandle methods: patched on the prototype of a handle.
{
  const h = await fs.promises.open(fileURLToPath(import.meta.url), 'r');
  const proto = Object.getPrototypeOf(h) as Record<string, unknown>;
  await h.close();
  for (const n of ['sync', 'datasync', 'stat', 'readFile', 'writeFile', 'close'])
    stamp(proto, n, `fh.${n}`);
}
// Request in (the server's 'request' event) and answer out (res.end).
const marks: { at: number; what: 'in' | 'out' }[] = [];
{
  // Wrapped and called with the right `this` below.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const emit = HttpServer.prototype.emit;
  HttpServer.prototype.emit = function (this: HttpServer, event: string, ...args: unknown[]) {
    if (event === 'request') marks.push({ at: performance.now(), what: 'in' });
    return (emit as (...a: unknown[]) => boolean).call(this, event, ...args);
  } as typeof emit;
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const end = ServerResponse.prototype.end;
  ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
    marks.push({ at: performance.now(), what: 'out' });
    return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof end;
}

const { runAgent } = await import('../src/run-agent.js');
const { AGENT_FILE_STORE_OPTIONS } = await import('../src/agent-store-options.js');
/** `TRACE_FILE_OPTIONS` (JSON) replaces the agent's file store options, to compare settings. */
const fileOptions = JSON.parse(
  process.env['TRACE_FILE_OPTIONS'] ?? JSON.stringify(AGENT_FILE_STORE_OPTIONS),
) as Record<string, unknown>;

const BIN = join(workspaceRoot(), 'bin');
const ROUNDS = Number(process.argv[2] ?? 30);
const dir = mkdtempSync(join(tmpdir(), 'netledger-trace-'));
const store = join(dir, 'store', 'datastore.json');
const socket = join(dir, 'run', 'node.sock');
let stop!: (s: string) => void;
const stopSignal = new Promise<string>((resolve) => (stop = resolve));

function categorize(s: Stamp): string {
  const p = s.path;
  if (p.includes('ipam.lock')) return 'host lock files';
  if (p.includes('datastore.json.lock')) return 'store lock files';
  if (/^(fsyncSync|fdatasyncSync|fh\.sync|fh\.datasync)$/.test(s.what))
    return p.endsWith('/store') || p === dirname(store) ? 'fsync dir' : 'fsync file';
  if (/tmp-|\.prev/.test(p) || /rename|writeFile|fh\.writeFile/.test(s.what))
    return 'store write (no fsync)';
  if (p.includes('datastore.json')) return 'store read/stat';
  return `other ${s.what}`;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
};

async function main(): Promise<void> {
  const ctl = spawnSync(
    join(BIN, 'netledgerctl'),
    ['ippool', 'create', '--name', 'b', '--cidr', '10.70.0.0/16'],
    {
      env: { ...process.env, NETLEDGER_DATASTORE_PATH: store },
    },
  );
  if (ctl.status !== 0) throw new Error(String(ctl.stderr));
  const inst = spawnSync(join(BIN, 'netledger-ipam'), ['install', '--bin-dir', join(dir, 'bin')]);
  if (inst.status !== 0) throw new Error(String(inst.stderr));
  const plugin = join(dir, 'bin', 'netledger-ipam');
  const conf = JSON.stringify({
    cniVersion: '1.0.0',
    name: 'trace',
    ipam: {
      type: 'netledger-ipam',
      nodename: 'n1',
      datastore_path: store,
      ipam_lock_file: join(dir, 'ipam.lock'),
      agent_socket: socket,
      log_level: 'error',
    },
  });
  writeFileSync(join(dir, 'conf.json'), conf);
  const running = runAgent({
    argv: ['--nodename', 'n1', '--socket', socket, '--log-level', 'error'],
    env: { NETLEDGER_DATASTORE_PATH: store },
    stdout: () => undefined,
    stderr: (t) => void process.stderr.write(t),
    stopSignal,
    opener: {
      user: () => ({ uid: 0, home: dir, xdgStateHome: undefined }),
      file: fileOptions,
      etcd: { transport: 'http', loadGrpc: () => Promise.reject(new Error('no gRPC here')) },
    },
    readFile: async (p) => fs.promises.readFile(p, 'utf8').catch(() => undefined),
    osHostname: () => 'n1',
    version: 'trace',
    defaultLockHelpers: [join(dir, 'bin', 'netledger-ipam')],
  });
  while (!existsSync(socket)) await new Promise((r) => setTimeout(r, 20));
  const run = (command: string, id: string) =>
    new Promise<{ start: number; end: number }>((resolve, reject) => {
      const start = performance.now();
      const c = spawn(plugin, [], {
        env: {
          PATH: '/usr/bin:/bin',
          CNI_COMMAND: command,
          CNI_CONTAINERID: id,
          CNI_NETNS: '/x',
          CNI_IFNAME: 'eth0',
          CNI_PATH: '/usr/lib/cni',
        },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let out = '';
      c.stdout.on('data', (d: Buffer) => (out += d.toString()));
      c.on('close', (code) =>
        code === 0
          ? resolve({ start, end: performance.now() })
          : reject(new Error(`${command} ${id}: ${out}`)),
      );
      c.stdin.end(conf);
    });
  for (const command of ['ADD', 'DEL']) {
    for (let i = 0; i < 3; i++) await run(command, `w${i}`);
    const rows: Record<string, number[]>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      stamps.length = 0;
      marks.length = 0;
      const cpu0 = process.cpuUsage();
      const t = await run(command, `c${i}`);
      const cpu = process.cpuUsage(cpu0);
      const inAt = marks.find((m) => m.what === 'in')?.at ?? t.start;
      const outAt = marks.find((m) => m.what === 'out')?.at ?? t.end;
      const row: Record<string, number[]> = {
        'client wall': [t.end - t.start],
        'before the request reached the agent': [inAt - t.start],
        'agent (request in to answer out)': [outAt - inAt],
        'after the answer': [t.end - outAt],
        'CPU of this process (agent and spawn)': [(cpu.user + cpu.system) / 1000],
      };
      for (const s of stamps) {
        if (s.at < inAt || s.at > outAt) continue;
        const c = categorize(s);
        (row[`${c} ms`] ??= [0])[0]! += s.ms;
        (row[`${c} calls`] ??= [0])[0]! += 1;
      }
      rows.push(row);
    }
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    console.log(`\n${command} (${ROUNDS} sequential, medians):`);
    for (const k of keys)
      console.log(`  ${k.padEnd(44)} ${median(rows.map((r) => r[k]?.[0] ?? 0)).toFixed(2)}`);
  }
  stop('SIGTERM');
  await running;
  rmSync(dir, { recursive: true, force: true });
}

await main();
