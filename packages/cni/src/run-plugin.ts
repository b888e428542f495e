import { createIpamClient, formatIpamReport } from '@netledger/ipam-core';
import type { DatastoreConfig } from '@netledger/datastore-config';
import type { Clock, Datastore, IpamClient, IpamReporter } from '@netledger/ipam-core';
import { parseCniArgs } from './cni-args.js';
import { CniError, CniErrorCode, toCniError } from './cni-error.js';
import type { CniCommand, Env } from './cni-request.js';
import { parseCniRequest } from './cni-request.js';
import { formatError, formatResult, printJson } from './cni-result.js';
import { checkAddInputLimits } from './add-input-limits.js';
import { cmdAdd } from './cmd-add.js';
import { cmdCheck } from './cmd-check.js';
import { cmdDel } from './cmd-del.js';
import { cmdGc } from './cmd-gc.js';
import { cmdStatus } from './cmd-status.js';
import type { CommandContext } from './command-context.js';
import type { AcquireHostLock } from './flock-host-lock.js';
import { cmdAddK8s } from './k8s/k8s-add.js';
import { cmdCheckK8s } from './k8s/k8s-check.js';
import { cmdDelK8s } from './k8s/k8s-del.js';
import type { KubeApi } from './k8s/kube-reads.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import type { IpamConf } from './net-conf.js';
import { decodeConfigHeader, parseNetConf } from './net-conf.js';
import type { NodenameSources } from './nodename.js';
import { enforcePathPolicy } from './path-policy.js';
import { resolveNodename } from './nodename.js';
import {
  SUPPORTED_VERSIONS,
  compareVersions,
  isSupportedVersion,
  versionInfo,
} from './spec-versions.js';
import type { SpecVersion } from './spec-versions.js';
import { handleIdFor } from './workload-identity.js';

/** calico-ipam's budget for one assign or release, counted from when the host lock is held. */
export const DEFAULT_TIMEOUT_MS = 90_000;
/** How long ADD, DEL and GC wait for the host lock before "try again later". */
export const DEFAULT_LOCK_TIMEOUT_MS = 90_000;

/** What the plugin needs from its host; the app wires real ones, tests in-memory ones. */
export interface PluginDeps extends NodenameSources {
  /**
   * The text of `nodename_file`, `undefined` when there is none. A rejection (a file that exists
   * but cannot be read) is logged as an error and taken as no node name, as calico-ipam does.
   */
  readonly readFile: (path: string) => Promise<string | undefined>;
  /**
   * Opens the configured datastore (the app's `@netledger/datastore-config` opener, which imports
   * the adapter lazily). A `DatastoreConfigError` it throws is reported with the spec's code.
   */
  readonly openDatastore: (conf: DatastoreConfig, log: Logger) => Promise<Datastore>;
  /**
   * Loads the adapter's code before the host lock is taken, so compiling it (the etcd client is
   * large) does not lengthen the section other invocations wait for. Optional.
   */
  readonly preloadDatastore?: (conf: DatastoreConfig) => Promise<void>;
  /**
   * The Kubernetes API on an opened `kubernetes` datastore's connection, for a Kubernetes pod's
   * annotations, namespace and KubeVirt VM (k8s/); without it, pods are not read.
   */
  readonly kubeApi?: (datastore: Datastore) => Promise<KubeApi | undefined>;
  /**
   * The IPAM client over the opened datastore (default: a new `createIpamClient` per invocation).
   * A long-lived process (the node agent) passes one client for all its requests, so its block
   * hints (the blocks it last wrote, its CAS bases) outlive a request.
   */
  readonly ipamClient?: (datastore: Datastore) => IpamClient;
  /** The logger for this invocation's config (default: silent). */
  readonly createLogger?: (ipam: IpamConf) => Logger;
  readonly clock?: Clock;
  /**
   * Takes the host lock for ADD, DEL and GC (`createFlockHostLock`'s, over the static client's lock
   * helper; undefined: the request goes on unlocked).
   */
  readonly acquireLock: AcquireHostLock;
  readonly timeoutMs?: number;
  readonly lockTimeoutMs?: number;
  /** Printed (with the supported versions) on stderr when CNI_COMMAND is unset. */
  readonly about?: string;
}

/** One invocation: the environment and stdin. */
export interface PluginInvocation {
  readonly env: Env;
  readonly stdin: string;
}

/** What the process prints and its exit status. */
export interface PluginOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: 0 | 1;
}

const incompatible = (msg: string, details?: string): CniError =>
  new CniError(CniErrorCode.IncompatibleCniVersion, msg, details === undefined ? {} : { details });

/** libcni skel's version gates: CHECK needs 0.4.0, GC and STATUS 1.1.0, all a supported version. */
function checkVersion(command: CniCommand, version: string): SpecVersion {
  compareVersions(version, '0.0.0');
  const minimum =
    command === 'CHECK' ? '0.4.0' : command === 'GC' || command === 'STATUS' ? '1.1.0' : undefined;
  if (minimum !== undefined && compareVersions(version, minimum) < 0) {
    throw incompatible(`config version does not allow ${command}`);
  }
  if (!isSupportedVersion(version)) {
    throw incompatible(
      'incompatible CNI versions',
      `config is "${version}", plugin supports ${JSON.stringify(SUPPORTED_VERSIONS)}`,
    );
  }
  return version;
}

/** The IPAM client's reports (failed best-effort steps) as lines of `log`, at their level. */
function ipamReporterFor(log: Logger): IpamReporter {
  return (report) => {
    const line = formatIpamReport(report);
    if (report.level === 'error') log.error(line);
    else log.warning(line);
  };
}

async function withTimeout<T>(ms: number, what: string, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CniError(CniErrorCode.TryAgainLater, `${what} timed out after ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Opens the datastore; an error is mapped as an opening error ({@link toCniError}), except that
 * STATUS reports a datastore it cannot open as "not available" (50), never "try again later".
 */
async function openFor(
  command: CniCommand,
  deps: PluginDeps,
  { conf, log }: { readonly conf: DatastoreConfig; readonly log: Logger },
): Promise<Datastore> {
  try {
    return await deps.openDatastore(conf, log);
  } catch (e) {
    if (command !== 'STATUS') throw toCniError(e, 'open');
    throw new CniError(
      CniErrorCode.PluginNotAvailable,
      `datastore unavailable: ${(e as Error).message}`,
      { cause: e },
    );
  }
}

async function runCommand(ctx: CommandContext, version: SpecVersion): Promise<string> {
  switch (ctx.request.command) {
    case 'ADD': {
      const result = ctx.kube ? await cmdAddK8s(ctx, ctx.kube) : await cmdAdd(ctx);
      const handle = handleIdFor(ctx.conf.name, ctx.request.containerId, ctx.request.ifname);
      ctx.log.info(`ADD ${handle}: ${result.ips.join(', ')}`);
      return printJson(formatResult(result, version));
    }
    case 'DEL':
      await (ctx.kube ? cmdDelK8s(ctx, ctx.kube) : cmdDel(ctx));
      return '';
    case 'CHECK':
      await (ctx.kube ? cmdCheckK8s(ctx, ctx.kube) : cmdCheck(ctx));
      return '';
    case 'GC':
      await cmdGc(ctx);
      return '';
    case 'STATUS':
      await cmdStatus(ctx);
      return '';
    case 'VERSION':
      return `${JSON.stringify(versionInfo())}\n`;
  }
}

/**
 * Runs one CNI invocation the way libcni's skel does, over ipam-core: reads the CNI_* variables
 * and stdin, gates the spec version, parses the calico-ipam config and CNI_ARGS, refuses an ADD
 * whose pod, namespace or handle Kubernetes could not hold (code 4), takes the host lock for ADD,
 * DEL and GC, then (with the timeout started once the lock is held) opens the
 * datastore, runs the command and prints its result in the requested version. Never throws:
 * every failure becomes the spec's error JSON on stdout with exit status 1, and the datastore is
 * always closed. On a timeout the datastore requests in flight are abandoned (the caller exits).
 */
export async function runCniPlugin(inv: PluginInvocation, deps: PluginDeps): Promise<PluginOutput> {
  let cniVersion: string | undefined;
  let log: Logger = silentLogger;
  try {
    const request = parseCniRequest(inv.env);
    if (!request) {
      const about = `${deps.about ?? 'netledger-ipam'}\nCNI protocol versions supported: ${SUPPORTED_VERSIONS.join(', ')}\n`;
      return { stdout: '', stderr: about, exitCode: 0 };
    }
    if (request.command === 'VERSION') {
      return { stdout: `${JSON.stringify(versionInfo())}\n`, stderr: '', exitCode: 0 };
    }
    const header = decodeConfigHeader(inv.stdin);
    const version = checkVersion(request.command, header.cniVersion);
    cniVersion = version;
    const conf = parseNetConf(inv.stdin, inv.env);
    await enforcePathPolicy({ ipam: conf.ipam, stdin: inv.stdin, env: inv.env });
    const cniArgs = parseCniArgs(request.args);
    if (request.command === 'ADD') {
      checkAddInputLimits({
        network: conf.name,
        containerId: request.containerId,
        ifname: request.ifname,
        cniArgs,
      });
    }
    log = deps.createLogger?.(conf.ipam) ?? silentLogger;
    const nodename = await resolveNodename(conf.ipam, {
      ...deps,
      // calico-ipam's nodenameFromFile: a file that cannot be read is logged, then taken as absent.
      readFile: (path) =>
        deps.readFile(path).catch((e: unknown) => {
          log.error(`Failed to read ${path}: ${e instanceof Error ? e.message : String(e)}`);
          return undefined;
        }),
    });
    // ADD, DEL and GC take the host lock before opening the datastore, so one process at a time
    // touches the store on this host (opening the file store takes its lock too).
    const locked =
      request.command === 'ADD' || request.command === 'DEL' || request.command === 'GC';
    await deps.preloadDatastore?.(conf.ipam.datastore);
    const waitStart = Date.now();
    const lock = locked
      ? await deps.acquireLock({
          path: conf.ipam.lockFile,
          timeoutMs: deps.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
          log,
        })
      : undefined;
    if (locked)
      log.debug(`host lock ${conf.ipam.lockFile} taken after ${Date.now() - waitStart} ms`);
    const workStart = Date.now();
    try {
      const stdout = await withTimeout(
        deps.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        request.command,
        async () => {
          const datastore = await openFor(request.command, deps, {
            conf: conf.ipam.datastore,
            log,
          });
          try {
            const clock = deps.clock ?? { now: () => Date.now() };
            const client =
              deps.ipamClient?.(datastore) ??
              createIpamClient({ datastore, clock, report: ipamReporterFor(log) });
            const kube =
              conf.ipam.datastore.type === 'kubernetes' && cniArgs.k8s
                ? await deps.kubeApi?.(datastore)
                : undefined;
            const ctx: CommandContext = {
              client,
              datastore,
              conf,
              request,
              cniArgs,
              nodename,
              nowMs: () => clock.now(),
              log,
              // On the file store ADD registers its node, so a fresh host needs no setup step.
              registerNode: conf.ipam.datastore.type === 'file',
              ...(kube && { kube }),
            };
            return await runCommand(ctx, version);
          } finally {
            // The command's outcome stands: a store that fails to close is only logged.
            await datastore.close().catch((e: unknown) => {
              log.warning(`closing the datastore: ${e instanceof Error ? e.message : String(e)}`);
            });
          }
        },
      );
      log.debug(`${request.command} done in ${Date.now() - workStart} ms after the lock`);
      return { stdout, stderr: '', exitCode: 0 };
    } finally {
      await lock?.release();
    }
  } catch (e) {
    const err = toCniError(e);
    log.error(`${inv.env['CNI_COMMAND'] ?? ''} failed (code ${err.code}): ${err.message}`);
    return { stdout: printJson(formatError(err, cniVersion)), stderr: '', exitCode: 1 };
  }
}
