// The run's configuration: flags and environment, then Calico's KubeControllersConfiguration.
import {
  RunConfigError,
  errorText,
  isNotFound,
  readKubeControllersConfiguration,
  resolveRunConfig,
} from '@netledger/kube-controllers';
import type { ParsedArgs, RunConfig, createKubeApis } from '@netledger/kube-controllers';
import { EXIT } from './exit-status.js';
import type { Fail } from './exit-status.js';

/**
 * Reads the KubeControllersConfiguration `default` (Calico's v1 CRDs, else its v3 CRDs:
 * projectcalico.org/v3 without the API server) and resolves the run's configuration with the
 * flags and environment in `args`. An exit status, said through `fail`, for a bad value (usage)
 * or a resource that cannot be read (failure).
 */
export async function readRunConfig(
  kube: ReturnType<typeof createKubeApis>,
  args: ParsedArgs,
  fail: Fail,
): Promise<RunConfig | number> {
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
  try {
    const resource =
      (await kcc('crd.projectcalico.org', 'v1')) ?? (await kcc('projectcalico.org', 'v3'));
    return resolveRunConfig(args, resource);
  } catch (e) {
    if (e instanceof RunConfigError) return fail(EXIT.usage, e.message);
    return fail(
      EXIT.failure,
      `cannot read the KubeControllersConfiguration "default": ${errorText(e)}`,
    );
  }
}
