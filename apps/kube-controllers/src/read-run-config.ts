// The run's configuration: flags and environment, then Calico's KubeControllersConfiguration.
import {
  RunConfigError,
  errorText,
  readDefaultKubeControllersConfiguration,
  resolveRunConfig,
} from '@netledger/kube-controllers';
import type { ParsedArgs, RunConfig, createKubeApis } from '@netledger/kube-controllers';
import { EXIT } from './exit-status.js';
import type { Fail } from './exit-status.js';

/**
 * Resolves the run's configuration from the flags and environment in `args` and the
 * KubeControllersConfiguration `default`. An exit status, said through `fail`, for a bad value
 * (usage) or a resource that cannot be read (failure).
 */
export async function readRunConfig(
  kube: ReturnType<typeof createKubeApis>,
  args: ParsedArgs,
  fail: Fail,
): Promise<RunConfig | number> {
  try {
    return resolveRunConfig(args, await readDefaultKubeControllersConfiguration(kube.custom));
  } catch (e) {
    if (e instanceof RunConfigError) return fail(EXIT.usage, e.message);
    return fail(
      EXIT.failure,
      `cannot read the KubeControllersConfiguration "default": ${errorText(e)}`,
    );
  }
}
