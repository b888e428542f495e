// What netledger-kube-controllers does between argv and an exit status: read the configuration
// (flags, environment, the KubeControllersConfiguration), open the store and the Kubernetes API,
// run the controllers until told to stop, and map every failure to a status and a message.
import {
  createDatastoreOpener,
  isDatastoreConfigError,
  readEnvSettings,
  resolveDatastoreConfig,
} from '@netledger/datastore-config';
import type { DatastoreConfig, DatastoreOpenerOptions } from '@netledger/datastore-config';
import { createIpamClient } from '@netledger/ipam-core';
import { createMirroredDatastore } from '@netledger/ipam-core/adapter';
import type { Datastore } from '@netledger/ipam-core';
import {
  KubeConfigError,
  RunConfigError,
  USAGE,
  createIpamGcController,
  createJsonLogger,
  createLoadBalancerController,
  createKubeApis,
  errorText,
  ipamGcSettings,
  isNotFound,
  loadBalancerSettings,
  loadKubeConfig,
  parseRunArgs,
  readKubeControllersConfiguration,
  resolveRunConfig,
  startControllerManager,
} from '@netledger/kube-controllers';
import type { Controller, ParsedArgs, RunConfig } from '@netledger/kube-controllers';
import { parseLogFormat } from '@netledger/log';

/** How long a requested stop may take before the process exits anyway. */
const STOP_TIMEOUT_MS = 15_000;

/** Exit statuses. */
const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** What the process gives the run. */
export interface RunDeps {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Resolves when the process is told to stop (SIGTERM, SIGINT). */
  readonly stopSignal: Promise<string>;
  readonly opener: DatastoreOpenerOptions;
  readonly version: string;
}

/**
 * Runs netledger-kube-controllers. Exit 0 after a requested stop (or --help/--version), 2 for a
 * bad flag, variable or KubeControllersConfiguration value or an unusable kubeconfig, 1 when
 * the Kubernetes API, the store or the listen address cannot be used.
 */
export async function runKubeControllers(deps: RunDeps): Promise<number> {
  const fail = (status: number, message: string): number => {
    deps.stderr(`netledger-kube-controllers: ${message}\n`);
    return status;
  };
  let args: ParsedArgs;
  try {
    args = parseRunArgs(deps.argv, deps.env);
  } catch (e) {
    return fail(EXIT.usage, `${errorText(e)}\n${USAGE}`);
  }
  if (args.help) {
    deps.stdout(USAGE);
    return EXIT.ok;
  }
  if (args.version) {
    deps.stdout(`netledger-kube-controllers ${deps.version}\n`);
    return EXIT.ok;
  }
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
  let config: RunConfig;
  try {
    // Calico's v1 CRDs, else its v3 CRDs (projectcalico.org/v3 without the API server).
    const kcc = (group: string, version: string) =>
      readKubeControllersConfiguration(
        () =>
          kube.custom.getClusterCustomObject({
            group,
            version,
            plural: 'kubecontrollersconfigurations',
            name: 'default',
          }),
        isNotFound,
      );
    const resource =
      (await kcc('crd.projectcalico.org', 'v1')) ?? (await kcc('projectcalico.org', 'v3'));
    config = resolveRunConfig(args, resource);
  } catch (e) {
    if (e instanceof RunConfigError) return fail(EXIT.usage, e.message);
    return fail(
      EXIT.failure,
      `cannot read the KubeControllersConfiguration "default": ${errorText(e)}`,
    );
  }
  const formatText = deps.env['NETLEDGER_LOG_FORMAT'] ?? 'json';
  const format = parseLogFormat(formatText);
  if (format === undefined)
    return fail(EXIT.usage, `NETLEDGER_LOG_FORMAT ${formatText}: not one of text, json`);
  const logger = createJsonLogger({
    write: deps.stdout,
    now: Date.now,
    level: config.logLevel,
    format,
  });
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
  let raw: Datastore;
  try {
    raw = await createDatastoreOpener(deps.opener).open(storeConfig, { mayCreate: false });
  } catch (e) {
    return fail(
      isDatastoreConfigError(e) && e.code !== 'NoDatastore' && e.code !== 'NotAvailable'
        ? EXIT.usage
        : EXIT.failure,
      `cannot open the ${storeConfig.type} datastore: ${errorText(e)}`,
    );
  }
  // Pools, config and nodes the IPAM client reads come from a watch-fed mirror; block reads and
  // every write still go to the store. The GC follows the store through its own watch.
  const mirrored = createMirroredDatastore(raw);
  // A best-effort step that failed (as Calico logs it), with its facts as fields.
  const ipam = createIpamClient({
    datastore: mirrored,
    report: ({ level, message, cause, ...facts }) =>
      logger.log(level === 'error' ? 'error' : 'warn', message, {
        ...facts,
        error: cause instanceof Error ? cause.message : String(cause),
      }),
  });
  const controllers: Controller[] = [];
  if (config.gcEnabled) {
    let settings;
    try {
      settings = ipamGcSettings({
        leakGracePeriodMs: config.leakGracePeriodMs,
        maxReleasesPerPass: config.maxReleasesPerPass,
      });
    } catch (e) {
      await mirrored.close();
      return fail(EXIT.usage, errorText(e));
    }
    controllers.push(
      createIpamGcController({ settings, deleteCalicoNodes: storeConfig.type !== 'kubernetes' }),
    );
  } else {
    logger.log(
      'warn',
      'the KubeControllersConfiguration has no controllers.node: the IPAM GC is off',
    );
  }
  if (config.loadBalancer !== 'off') {
    controllers.push(
      createLoadBalancerController({
        settings: loadBalancerSettings({
          mode: config.loadBalancer,
          assignIps: config.loadBalancerAssignIps,
        }),
      }),
    );
  }
  let manager;
  try {
    manager = await startControllerManager({
      controllers,
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
  const signal = await deps.stopSignal;
  logger.log('info', 'stopping', { signal });
  // A stop that hangs (a request without an answer) must not keep the process: Kubernetes would
  // SIGKILL it after its grace period anyway; the lease then simply expires.
  let timer: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    (async () => {
      await manager.stop();
      await mirrored.close();
      return true;
    })(),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STOP_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  if (!stopped) {
    logger.log('error', 'stop timed out; exiting anyway', { timeoutMs: STOP_TIMEOUT_MS });
    return EXIT.failure;
  }
  logger.log('info', 'stopped');
  return EXIT.ok;
}
