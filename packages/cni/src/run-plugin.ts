import { toCniError } from './cni-error.js';
import type { Env } from './cni-request.js';
import { parseCniRequest } from './cni-request.js';
import { formatError, printJson } from './cni-result.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import type { IpamConf } from './net-conf.js';
import { decodeConfigHeader } from './net-conf.js';
import { resolveNodename } from './nodename.js';
import type { PluginDeps } from './plugin-deps.js';
import { readInvocation } from './read-invocation.js';
import { runOnDatastore } from './run-on-datastore.js';
import { runUnderHostLock } from './run-under-host-lock.js';
import { SUPPORTED_VERSIONS, versionInfo } from './spec-versions.js';
import { gateVersion } from './version-gate.js';

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

/** The node name, calico-ipam's nodenameFromFile: a file that cannot be read is logged, then taken as absent. */
function nodenameFor(ipam: IpamConf, deps: PluginDeps, log: Logger): Promise<string> {
  return resolveNodename(ipam, {
    ...deps,
    readFile: (path) =>
      deps.readFile(path).catch((e: unknown) => {
        log.error(`Failed to read ${path}: ${e instanceof Error ? e.message : String(e)}`);
        return undefined;
      }),
  });
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
    const version = gateVersion(request.command, decodeConfigHeader(inv.stdin).cniVersion);
    cniVersion = version;
    const { conf, cniArgs } = await readInvocation(inv, request);
    log = deps.createLogger?.(conf.ipam) ?? silentLogger;
    const nodename = await nodenameFor(conf.ipam, deps, log);
    const checked = { request, conf, cniArgs, nodename, version, log };
    const stdout = await runUnderHostLock({ command: request.command, conf, log }, deps, () =>
      runOnDatastore(checked, deps),
    );
    return { stdout, stderr: '', exitCode: 0 };
  } catch (e) {
    const err = toCniError(e);
    log.error(`${inv.env['CNI_COMMAND'] ?? ''} failed (code ${err.code}): ${err.message}`);
    return { stdout: printJson(formatError(err, cniVersion)), stderr: '', exitCode: 1 };
  }
}
