// @netledger/ipam-core/load-balancer: which Kubernetes Services Calico's LoadBalancer controller
// manages, for the controller (`@netledger/kube-controllers`) and for tools that count their
// addresses (`netledgerctl ipam check`): the fields of a Service the rules read, Calico's
// annotations, and the KubeControllersConfiguration's `controllers.loadBalancer`. Pure.

export { SERVICE_ANNOTATIONS, slimService } from './load-balancer/slim-service.js';
export type { IngressEntry, SlimService } from './load-balancer/slim-service.js';
export {
  LOAD_BALANCER_CLASS,
  isManagedLoadBalancer,
} from './load-balancer/is-managed-load-balancer.js';
export type { AssignIpsMode } from './load-balancer/is-managed-load-balancer.js';
export { loadBalancerControllerOf } from './load-balancer/load-balancer-controller-of.js';
