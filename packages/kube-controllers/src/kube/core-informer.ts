// An informer over every object of one core (v1) resource, listed in pages.
import type { KubeApis } from './kube-client.js';
import type { Logger } from '../logger.js';
import type { ListPage, Slim, SlimInformer } from './slim-informer.js';
import { startSlimInformer } from './slim-informer.js';

/** Page size of informer lists: bounds the memory a list of 10,000 pods takes at once. */
export const LIST_PAGE_SIZE = 500;

/** One page of a core resource's list, as client-node's CoreV1Api lists it. */
type ListCall = (page: { limit: number; _continue?: string }) => Promise<unknown>;

/**
 * Starts an informer over every object of the core resource `resource` (`pods`, `nodes`,
 * `services`): watched at `/api/v1/<resource>`, listed through `list` in pages of
 * {@link LIST_PAGE_SIZE}, each object reduced by `slim`.
 */
export function startCoreInformer<T extends Slim>(
  kube: KubeApis,
  logger: Logger,
  o: { readonly resource: string; readonly slim: (obj: unknown) => T; readonly list: ListCall },
): SlimInformer<T> {
  return startSlimInformer({
    config: kube.config,
    path: `/api/v1/${o.resource}`,
    name: o.resource,
    logger,
    slim: o.slim,
    listPage: async (token) =>
      (await o.list({ limit: LIST_PAGE_SIZE, ...(token && { _continue: token }) })) as ListPage,
  });
}
