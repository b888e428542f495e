// Throwaway network namespaces and a CNI main plugin (Debian's bridge) run inside a "host"
// namespace, so nothing touches the real host. cleanup() removes every namespace created.
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { createNetnsPool, requireNetnsTools } from '@netledger/testkit';
import { BIN_DIR, requirePlugin } from './exec-harness.js';

const CNI_DIR = '/usr/lib/cni';

/** Fails (never skips) when something the namespace tests need is missing. */
export function requireNetnsPrerequisites(): void {
  requirePlugin();
  requireNetnsTools({ ip: 'iproute2', ping: 'iputils-ping' });
  for (const p of ['bridge', 'host-local']) {
    if (!existsSync(join(CNI_DIR, p))) {
      throw new Error(`missing ${CNI_DIR}/${p}: apt-get install -y containernetworking-plugins`);
    }
  }
}

export interface PluginRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly json: Record<string, unknown> | undefined;
  readonly ms: number;
}

/**
 * Throwaway namespaces under tag `tag`; plugins are found in `binDir` (default the workspace's
 * bin/) and then Debian's /usr/lib/cni.
 */
export function createNetnsHarness(tag: string, options: { binDir?: string } = {}) {
  const binDir = options.binDir ?? BIN_DIR;
  const suffix = randomBytes(3).toString('hex');
  const pool = createNetnsPool();
  const host = pool.create(`${tag}-h`);
  return {
    host,
    suffix,
    /** A container namespace. */
    container(i: number): string {
      return pool.create(`${tag}-c${i}`);
    },
    /** Runs `/usr/lib/cni/<plugin>` inside the host namespace, as a runtime would. */
    runPlugin(
      plugin: string,
      command: string,
      args: { containerId: string; netns: string; conf: unknown },
    ): Promise<PluginRun> {
      const env = {
        PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
        CNI_COMMAND: command,
        CNI_CONTAINERID: args.containerId,
        CNI_NETNS: `/var/run/netns/${args.netns}`,
        CNI_IFNAME: 'eth0',
        CNI_PATH: `${binDir}${delimiter}${CNI_DIR}`,
      };
      const start = performance.now();
      return new Promise((resolve) => {
        const child = execFile(
          'ip',
          ['netns', 'exec', host, join(CNI_DIR, plugin)],
          { env, encoding: 'utf8' },
          (error, stdout, stderr) => {
            let json: Record<string, unknown> | undefined;
            try {
              json = JSON.parse(stdout) as Record<string, unknown>;
            } catch {
              json = undefined;
            }
            const status = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
            resolve({ status, stdout, stderr, json, ms: performance.now() - start });
          },
        );
        child.stdin?.end(JSON.stringify(args.conf));
      });
    },
    /** IPv4 addresses (with prefix) on `dev` inside `netns`. */
    addresses(netns: string, dev = 'eth0'): string[] {
      const out = execFileSync('ip', ['-n', netns, '-j', 'addr', 'show', 'dev', dev], {
        encoding: 'utf8',
      });
      const links = JSON.parse(out) as {
        addr_info: { family: string; local: string; prefixlen: number }[];
      }[];
      return links.flatMap((l) =>
        l.addr_info.filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`),
      );
    },
    /** The IPv4 addresses (with prefix) on `dev` of the host namespace (the bridge). */
    hostAddresses(dev: string): string[] {
      return this.addresses(host, dev);
    },
    /** `ip route get <ip>` inside `netns`: how the container would reach it. */
    routeGet(netns: string, ip: string): string {
      return execFileSync('ip', ['-n', netns, 'route', 'get', ip], { encoding: 'utf8' }).trim();
    },
    /** Whether one ping from `netns` to `ip` is answered (within 2 s). */
    ping(netns: string, ip: string): boolean {
      try {
        execFileSync('ip', ['netns', 'exec', netns, 'ping', '-c', '1', '-W', '2', ip], {
          stdio: 'pipe',
        });
        return true;
      } catch {
        return false;
      }
    },
    /** A link's MAC address inside the host namespace. */
    mac(dev: string): string {
      const out = execFileSync('ip', ['-n', host, '-j', 'link', 'show', 'dev', dev], {
        encoding: 'utf8',
      });
      const [link] = JSON.parse(out) as { address: string }[];
      if (link === undefined) throw new Error(`no link ${dev} in ${host}`);
      return link.address;
    },
    /** Sets a link's MAC address inside the host namespace. */
    setMac(dev: string, mac: string): void {
      execFileSync('ip', ['-n', host, 'link', 'set', 'dev', dev, 'address', mac]);
    },
    /** Whether `dev` exists inside `netns`. */
    hasLink(netns: string, dev = 'eth0'): boolean {
      try {
        execFileSync('ip', ['-n', netns, 'link', 'show', 'dev', dev], { stdio: 'pipe' });
        return true;
      } catch {
        return false;
      }
    },
    cleanup(): void {
      pool.cleanup();
    },
  };
}

/** Runs `work` over `items` with at most `limit` in flight, in order of completion. */
export async function pooled<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
