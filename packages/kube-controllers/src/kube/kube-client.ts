import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
} from '@kubernetes/client-node';

/** The Kubernetes API clients the controllers use (client-node's typed, object-parameter APIs). */
export interface KubeApis {
  readonly config: KubeConfig;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
  readonly custom: CustomObjectsApi;
}

/** Why the Kubernetes configuration could not be loaded. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}

/**
 * Loads a kubeconfig file, or the in-cluster configuration (the pod's service account) when none
 * is given. Throws {@link KubeConfigError} naming the file, or saying that no in-cluster
 * configuration exists (not in a pod).
 */
export function loadKubeConfig(options: {
  readonly kubeconfig?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfig !== undefined) {
    try {
      kc.loadFromFile(options.kubeconfig);
    } catch (e) {
      throw new KubeConfigError(
        `cannot load kubeconfig ${options.kubeconfig}: ${(e as Error).message}`,
      );
    }
    if (!kc.getCurrentCluster()) {
      throw new KubeConfigError(`kubeconfig ${options.kubeconfig} has no current cluster`);
    }
    return kc;
  }
  const env = options.env ?? process.env;
  if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT) {
    throw new KubeConfigError(
      'no --kubeconfig given and not running in a pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)',
    );
  }
  try {
    kc.loadFromCluster();
  } catch (e) {
    throw new KubeConfigError(`cannot load the in-cluster configuration: ${(e as Error).message}`);
  }
  return kc;
}

/** The API clients for a configuration. */
export function createKubeApis(config: KubeConfig): KubeApis {
  return {
    config,
    core: config.makeApiClient(CoreV1Api),
    coordination: config.makeApiClient(CoordinationV1Api),
    custom: config.makeApiClient(CustomObjectsApi),
  };
}

/** The HTTP status of a client-node API error (`ApiException.code`), if it has one. */
export function kubeStatus(e: unknown): number | undefined {
  if (e !== null && typeof e === 'object') {
    const code =
      (e as { code?: unknown; statusCode?: unknown }).code ??
      (e as { statusCode?: unknown }).statusCode;
    if (typeof code === 'number') return code;
  }
  return undefined;
}

/** Whether an API error is a 404 NotFound. */
export const isNotFound = (e: unknown): boolean => kubeStatus(e) === 404;
