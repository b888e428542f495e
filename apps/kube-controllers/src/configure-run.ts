// Everything the run is configured by: the store's settings, the Kubernetes API's kubeconfig, the
// KubeControllersConfiguration, and the log's format and level.
import { readEnvSettings, resolveDatastoreConfig } from '@netledger/datastore-config';
import type { DatastoreConfig } from '@netledger/datastore-config';
import {
  KubeConfigError,
  createJsonLogger,
  createKubeApis,
  errorText,
  loadKubeConfig,
} from '@netledger/kube-controllers';
import type { ParsedArgs, RunConfig } from '@netledger/kube-controllers';
import { LogFormatError, logFormatFromEnv } from '@netledger/log';
import { EXIT } from './exit-status.js';
import type { Fail } from './exit-status.js';
import { readRunConfig } from './read-run-config.js';
import type { RunDeps } from './run.js';

/** The run's logger. */
type RunLogger = ReturnType<typeof createJsonLogger>;

/** The configured run: its store's settings, the Kubernetes API, its configuration and log. */
export interface RunSetup {
  readonly storeConfig: DatastoreConfig;
  readonly kube: ReturnType<typeof createKubeApis>;
  readonly config: RunConfig;
  readonly logger: RunLogger;
}

/** The run's logger on stdout (NETLEDGER_LOG_FORMAT, JSON by default), or an exit status. */
function runLogger(deps: RunDeps, config: RunConfig, fail: Fail): RunLogger | number {
  let format;
  try {
    format = logFormatFromEnv(deps.env, 'json');
  } catch (e) {
    if (e instanceof LogFormatError) return fail(EXIT.usage, e.message);
    throw e;
  }
  return createJsonLogger({ write: deps.stdout, now: Date.now, level: config.logLevel, format });
}

/**
 * Reads the store's settings from the environment, opens the Kubernetes API (a bad kubeconfig is
 * a usage error), reads the run's configuration and makes its logger, then logs the start. A
 * Kubernetes store without its own kubeconfig takes the run's. An exit status, said through
 * `fail`, when any of them is bad or cannot be read; nothing is opened then.
 */
export async function configureRun(
  deps: RunDeps,
  args: ParsedArgs,
  fail: Fail,
): Promise<RunSetup | number> {
  let storeConfig: DatastoreConfig;
  try {
    storeConfig = resolveDatastoreConfig([readEnvSettings(deps.env)]);
  } catch (e) {
    return fail(EXIT.usage, errorText(e));
  }
  let kube;
  try {
    kube = createKubeApis(
      loadKubeConfig({
        ...(args.kubeconfig !== undefined && { kubeconfig: args.kubeconfig }),
        env: deps.env,
      }),
    );
  } catch (e) {
    return fail(e instanceof KubeConfigError ? EXIT.usage : EXIT.failure, errorText(e));
  }
  const config = await readRunConfig(kube, args, fail);
  if (typeof config === 'number') return config;
  const logger = runLogger(deps, config, fail);
  if (typeof logger === 'number') return logger;
  logger.log('info', 'starting netledger-kube-controllers', {
    version: deps.version,
    datastore: storeConfig.type,
    leakGracePeriodMs: config.leakGracePeriodMs ?? 'unset',
    leakGracePeriodFrom: config.sources.leakGracePeriod,
    maxReleasesPerPass: config.maxReleasesPerPass,
    gc: config.gcEnabled,
    loadBalancer: config.loadBalancer,
    loadBalancerFrom: config.sources.loadBalancer,
    loadBalancerAssignIps: config.loadBalancerAssignIps,
  });
  if (
    storeConfig.type === 'kubernetes' &&
    storeConfig.kubeconfig === undefined &&
    config.kubeconfig !== undefined
  ) {
    storeConfig = { ...storeConfig, kubeconfig: config.kubeconfig };
  }
  return { storeConfig, kube, config, logger };
}
