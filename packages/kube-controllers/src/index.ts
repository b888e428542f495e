// The public surface is what netledger-kube-controllers (apps/kube-controllers) wires: the
// controller manager, the two controllers with their settings, configuration, the Kubernetes
// client and logging. Everything else is the package's own.

// The controller framework.
export type { Controller } from './manager/controller.js';
export { startControllerManager } from './manager/controller-manager.js';
export { KubeConfigError, createKubeApis, loadKubeConfig } from './kube/kube-client.js';

// The controllers.
export { createIpamGcController } from './gc/ipam-gc-controller.js';
export { ipamGcSettings } from './gc/gc-settings.js';
export { createLoadBalancerController } from './lb/load-balancer-controller.js';
export { loadBalancerSettings } from './lb/lb-settings.js';

// Configuration and logging.
export { RunConfigError, USAGE, parseRunArgs, resolveRunConfig } from './config/run-config.js';
export { readDefaultKubeControllersConfiguration } from './config/read-default-configuration.js';
export type { ParsedArgs, RunConfig } from './config/run-config.js';
export { createJsonLogger, errorText } from './logger.js';
