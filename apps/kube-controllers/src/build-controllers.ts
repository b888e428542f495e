// Which controllers run: the IPAM GC and the LoadBalancer controller, as configured.
import {
  createIpamGcController,
  createLoadBalancerController,
  ipamGcSettings,
  loadBalancerSettings,
} from '@netledger/kube-controllers';
import type { Controller } from '@netledger/kube-controllers';
import type { RunSetup } from './configure-run.js';

/**
 * The controllers `config` turns on: the IPAM GC (warned about when off: no `controllers.node`),
 * which deletes Calico Node objects itself except on a Kubernetes store, and the LoadBalancer
 * controller. Throws the GC settings' error for a bad grace period or release bound.
 */
export function buildControllers(
  setup: Pick<RunSetup, 'config' | 'storeConfig' | 'logger'>,
): Controller[] {
  const { config, storeConfig, logger } = setup;
  const controllers: Controller[] = [];
  if (config.gcEnabled) {
    const settings = ipamGcSettings({
      leakGracePeriodMs: config.leakGracePeriodMs,
      maxReleasesPerPass: config.maxReleasesPerPass,
    });
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
  return controllers;
}
