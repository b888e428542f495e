import { createIpamClient, formatIpamReport } from '@netledger/ipam-core';
import type { DatastoreConfig } from '@netledger/datastore-config';
import type { Datastore, IpamReporter } from '@netledger/ipam-core';
import type { CniArgs } from './cni-args.js';
import { CniError, CniErrorCode, toCniError } from './cni-error.js';
import type { CniCommand, CniRequest } from './cni-request.js';
import type { CommandContext } from './command-context.js';
import type { Logger } from './logger.js';
import type { NetConf } from './net-conf.js';
import type { PluginDeps } from './plugin-deps.js';
import { runCommand } from './run-command.js';
import type { SpecVersion } from './spec-versions.js';

/** One checked request, ready to run on its datastore. */
export interface CheckedRequest {
  readonly request: CniRequest;
  readonly conf: NetConf;
  readonly cniArgs: CniArgs;
  readonly nodename: string;
  readonly version: SpecVersion;
  readonly log: Logger;
}

/** The IPAM client's reports (failed best-effort steps) as lines of `log`, at their level. */
function ipamReporterFor(log: Logger): IpamReporter {
  return (report) => {
    const line = formatIpamReport(report);
    if (report.level === 'error') log.error(line);
    else log.warning(line);
  };
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

/**
 * Opens the configured datastore, builds the command's context (the IPAM client, from
 * `deps.ipamClient` or a new one reporting to the log; the Kubernetes API for a pod on the
 * `kubernetes` store) and runs the command, returning its stdout. The datastore is always closed;
 * a failure to close it is only logged, so the command's outcome stands.
 */
export async function runOnDatastore(run: CheckedRequest, deps: PluginDeps): Promise<string> {
  const { request, conf, cniArgs, nodename, log } = run;
  const datastore = await openFor(request.command, deps, { conf: conf.ipam.datastore, log });
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
    return await runCommand(ctx, run.version);
  } finally {
    await datastore.close().catch((e: unknown) => {
      log.warning(`closing the datastore: ${e instanceof Error ? e.message : String(e)}`);
    });
  }
}
