// Lists of one kind's raw objects, paginated, at the latest revision or exactly at one.
import type { Kind } from '@netledger/ipam-core';
import type { JsonObject } from './ipam-crd-codec.js';
import type { KubeCalls } from './kube-calls.js';
import { isObject, meta } from './kube-object-kv.js';
import type { KubePaths } from './kube-paths.js';

const PAGE = 500;

/** A list's raw objects and the revision it was read at. */
export interface RawList {
  readonly items: JsonObject[];
  readonly revision: string;
}

/** What a list query may ask: a label selector, an exact revision, or one page of `limit`. */
export interface RawListQuery {
  labelSelector?: string;
  resourceVersion?: string;
  limit?: number;
}

/**
 * The objects of `kind` (every page, unless `q.limit` asks for one), with the revision of the
 * first page; a failed page fails the list, naming the resource.
 */
export async function listRawObjects(
  p: KubeCalls & Pick<KubePaths, 'resourceOf' | 'collectionOf'>,
  kind: Kind,
  q: RawListQuery,
): Promise<RawList> {
  const fail: KubeCalls['fail'] = p.fail;
  const object = p.resourceOf(kind);
  const items: JsonObject[] = [];
  let revision = '';
  let cont: string | undefined;
  do {
    const res = await p.call(
      {
        method: 'GET',
        path: p.collectionOf(kind),
        query: {
          // A label-selected list (a host's affinities) is small and sent unpaginated: the API
          // server answers a consistent list from its watch cache only without a limit (with
          // etcd >= 3.5.13 / 3.4.31); a paginated one always reads the whole range from etcd.
          limit:
            q.labelSelector !== undefined && q.limit === undefined
              ? undefined
              : String(q.limit ?? PAGE),
          labelSelector: q.labelSelector,
          continue: cont,
          ...(cont === undefined &&
            q.resourceVersion !== undefined && {
              resourceVersion: q.resourceVersion,
              resourceVersionMatch: 'Exact',
            }),
        },
      },
      object,
    );
    if (res.status !== 200 || !isObject(res.body)) fail(res, { method: 'LIST', object });
    const body = res.body;
    for (const item of Array.isArray(body.items) ? body.items : []) {
      if (isObject(item)) items.push(item);
    }
    const m = meta(body);
    if (revision === '' && typeof m.resourceVersion === 'string') revision = m.resourceVersion;
    cont =
      q.limit === undefined && typeof m.continue === 'string' && m.continue
        ? m.continue
        : undefined;
  } while (cont !== undefined);
  return { items, revision };
}
