// The controllers running: started under leader election with their metrics endpoint, until the
// process is told to stop.
import { errorText, startControllerManager } from '@netledger/kube-controllers';
import type { Controller } from '@netledger/kube-controllers';
import type { RunSetup } from './configure-run.js';
import { EXIT } from './exit-status.js';
import type { Fail } from './exit-status.js';
import type { OpenedIpam } from './open-ipam.js';

/** How long a requested stop may take before the process exits anyway. */
const STOP_TIMEOUT_MS = 15_000;

/** What runs, and until when. */
export interface Running {
  readonly setup: RunSetup;
  readonly opened: OpenedIpam;
  readonly controllers: readonly Controller[];
  /** Resolves with the signal's name when the process is told to stop. */
  readonly stopSignal: Promise<string>;
}

/** Stops the manager, then the store; false when that took longer than STOP_TIMEOUT_MS. */
async function stopWithin(stop: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    stop().then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STOP_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  return stopped;
}

/**
 * Starts the controller manager (leader election, the metrics and health endpoint), waits for the
 * stop signal, then stops the manager and closes the store. Exit 0 after a clean stop; 1, said
 * through `fail`, when the endpoint cannot listen (the store is closed again), or logged when the
 * stop took too long.
 */
export async function runUntilStopped(r: Running, fail: Fail): Promise<number> {
  const { config, kube, logger } = r.setup;
  const { raw, mirrored, ipam } = r.opened;
  let manager;
  try {
    manager = await startControllerManager({
      controllers: r.controllers,
      kube,
      datastore: raw,
      ipam,
      logger,
      leaderElection: {
        namespace: config.leaseNamespace,
        name: config.leaseName,
        leaseDurationMs: config.leaseDurationMs,
        renewDeadlineMs: config.renewDeadlineMs,
        retryPeriodMs: config.retryPeriodMs,
      },
      listen: config.metricsListen,
    });
  } catch (e) {
    await mirrored.close();
    const where = `${config.metricsListen.host}:${config.metricsListen.port}`;
    return fail(
      EXIT.failure,
      (e as NodeJS.ErrnoException).code === 'EADDRINUSE'
        ? `cannot listen on ${where}: address in use`
        : errorText(e),
    );
  }
  const signal = await r.stopSignal;
  logger.log('info', 'stopping', { signal });
  // A stop that hangs (a request without an answer) must not keep the process: Kubernetes would
  // SIGKILL it after its grace period anyway; the lease then simply expires.
  const stopped = await stopWithin(async () => {
    await manager.stop();
    await mirrored.close();
  });
  if (!stopped) {
    logger.log('error', 'stop timed out; exiting anyway', { timeoutMs: STOP_TIMEOUT_MS });
    return EXIT.failure;
  }
  logger.log('info', 'stopped');
  return EXIT.ok;
}
