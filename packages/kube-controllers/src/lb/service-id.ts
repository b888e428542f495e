/** `namespace/name`: how the LoadBalancer controller keys Services. */
export const serviceId = (svc: {
  readonly metadata: { readonly name: string; readonly namespace?: string };
}): string => `${svc.metadata.namespace ?? ''}/${svc.metadata.name}`;
