import type { SlimService } from '@netledger/ipam-core/load-balancer';

/** The addresses a Service's status shows. */
export const ingressIps = (svc: SlimService): string[] =>
  svc.ingress.map((e) => e.ip).filter((ip): ip is string => ip !== undefined);

/**
 * The Service shows exactly these addresses, in order, and nothing else (the API server's own
 * `ipMode` default aside).
 */
export const showsExactly = (svc: SlimService, ips: readonly string[]): boolean =>
  svc.ingress.length === ips.length &&
  svc.ingress.every(
    (e, i) => e.ip === ips[i] && Object.keys(e).every((k) => k === 'ip' || k === 'ipMode'),
  );
