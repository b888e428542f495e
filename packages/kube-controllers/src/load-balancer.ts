// @netledger/kube-controllers/load-balancer: which Services the LoadBalancer controller manages,
// for tools that count their addresses (`netledgerctl ipam check`) without loading the controller,
// its Kubernetes client or its metrics: pure functions only.
export {
  LOAD_BALANCER_CLASS,
  isManagedLoadBalancer,
  loadBalancerControllerOf,
} from './lb-service-rules.js';
export type { AssignIpsMode } from './lb-service-rules.js';
export { SERVICE_ANNOTATIONS, slimService } from './slim-service.js';
export type { IngressEntry, SlimService } from './slim-service.js';
