// Where netledger-kube-controllers finds Calico's KubeControllersConfiguration `default`.
import type { KubeApis } from '../kube/kube-client.js';
import { isNotFound } from '../kube/kube-client.js';
import { readKubeControllersConfiguration } from './run-config.js';

/**
 * Reads the KubeControllersConfiguration `default` from Calico's v1 CRDs
 * (`crd.projectcalico.org/v1`), else from its v3 CRDs (`projectcalico.org/v3` without Calico's API
 * server); undefined when neither holds it. Throws `RunConfigError` for a resource without a spec,
 * and the API's error for one that cannot be read.
 */
export async function readDefaultKubeControllersConfiguration(
  custom: Pick<KubeApis['custom'], 'getClusterCustomObject'>,
): ReturnType<typeof readKubeControllersConfiguration> {
  const read = (
    group: string,
    version: string,
  ): ReturnType<typeof readKubeControllersConfiguration> =>
    readKubeControllersConfiguration(
      () =>
        custom.getClusterCustomObject({
          group,
          version,
          plural: 'kubecontrollersconfigurations',
          name: 'default',
        }),
      isNotFound,
    );
  return (await read('crd.projectcalico.org', 'v1')) ?? (await read('projectcalico.org', 'v3'));
}
