// What the agent's end-to-end tests share: the built executables, the plugin installed with an
// agent client, and running it as a runtime does (CNI_* environment and the config on stdin).
import { execFile, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN_DIR = join(ROOT, 'bin');
export const AGENT = join(BIN_DIR, 'netledger-node');
const CTL = join(BIN_DIR, 'netledgerctl');

/** One plugin run. */
export interface CniRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly json: Record<string, unknown> | undefined;
}

/**
 * Installs netledger-ipam from bin/ into `dir` (`netledger-ipam install`) with the agent socket
 * `socket` and the given client; returns the installed launcher.
 */
export function installPlugin(args: {
  dir: string;
  socket: string;
  client: 'perl' | 'node';
}): string {
  const r = spawnSync(
    join(BIN_DIR, 'netledger-ipam'),
    [
      'install',
      '--bin-dir',
      args.dir,
      '--agent-socket',
      args.socket,
      '--agent-client',
      args.client,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`install failed: ${r.stderr}`);
  if (args.client === 'perl' && !r.stdout.includes('node agent client: /')) {
    throw new Error(`no Perl found for the agent client: ${r.stdout}`);
  }
  return join(args.dir, 'netledger-ipam');
}

/** Runs `plugin` (a launcher) for one command, as a runtime does. */
export function runCni(args: {
  plugin: string;
  command: string;
  containerId?: string;
  conf: unknown;
  env?: Record<string, string>;
}): Promise<CniRun> {
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    CNI_COMMAND: args.command,
    CNI_CONTAINERID: args.containerId ?? 'c1',
    CNI_NETNS: `/var/run/netns/${args.containerId ?? 'c1'}`,
    CNI_IFNAME: 'eth0',
    CNI_PATH: BIN_DIR,
    ...args.env,
  };
  return new Promise((resolve) => {
    const child = execFile(args.plugin, [], { env, encoding: 'utf8' }, (error, stdout, stderr) => {
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ status, stdout, stderr, json });
    });
    child.stdin?.end(JSON.stringify(args.conf));
  });
}

/** Runs netledgerctl against the file store at `path`; throws on failure. */
export function ctl(path: string, args: string[]): string {
  const r = spawnSync(CTL, args, {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NETLEDGER_DATASTORE_PATH: path },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`netledgerctl ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** The first address of a CNI result. */
export const addressOf = (run: CniRun): string =>
  ((run.json?.['ips'] as { address: string }[] | undefined)?.[0]?.address ?? '').split('/')[0]!;

/** A request count of the agent's status (`requests`), 0 when absent. */
export const served = (
  requests: Readonly<Record<string, number>>,
  labels: { command: string; client: string; outcome: string },
): number =>
  requests[`command="${labels.command}",client="${labels.client}",outcome="${labels.outcome}"`] ??
  0;
