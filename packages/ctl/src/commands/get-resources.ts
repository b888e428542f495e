import { isIpamError } from '@netledger/ipam-core';
import type { IpamClient, ResourceClient } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import type { OutputFormat } from '../output/render-output.js';
import type { ResourceKind, ResourceObject } from './resource-kind.js';
import { ipamConfigResource, parseResourceKind } from './resource-kind.js';
import { renderResources } from './render-resources.js';

const clientOf = (
  ipam: IpamClient,
  kind: Exclude<ResourceKind, 'IPAMConfiguration'>,
): ResourceClient<unknown> =>
  kind === 'IPPool' ? ipam.pools : kind === 'Node' ? ipam.nodes : ipam.reservations;

/** Every resource of `kind`; the IPAMConfiguration is the one in force (defaults if none is stored). */
async function listKind(ipam: IpamClient, kind: ResourceKind): Promise<ResourceObject[]> {
  if (kind === 'IPAMConfiguration') return [ipamConfigResource(await ipam.getIpamConfig())];
  return (await clientOf(ipam, kind).list()) as ResourceObject[];
}

async function getOne(ipam: IpamClient, kind: ResourceKind, name: string): Promise<ResourceObject> {
  if (kind !== 'IPAMConfiguration') return (await clientOf(ipam, kind).get(name)) as ResourceObject;
  if (name !== 'default') {
    throw new CtlError(
      'Failed',
      `IPAMConfiguration ${JSON.stringify(name)} does not exist (only default)`,
    );
  }
  return ipamConfigResource(await ipam.getIpamConfig());
}

/**
 * `get KIND [NAME]...` (calicoctl's): every resource of the kind, as a listing or its typed list
 * (`IPPoolList`), or the named ones (one alone as itself). `KIND` takes calicoctl's names and
 * plurals. A name that does not exist fails the command naming it (after reading the others; no
 * partial output). Reads only.
 */
export async function getResources(
  store: { ipam: IpamClient },
  request: {
    readonly kind: string;
    readonly names: readonly string[];
    readonly format: OutputFormat;
  },
): Promise<{ text: string }> {
  const kind = parseResourceKind(request.kind);
  const { names, format } = request;
  if (names.some((n) => n === '')) throw new CtlError('Usage', 'resource name may not be empty');
  if (names.length === 0) {
    return {
      text: renderResources(kind, await listKind(store.ipam, kind), { format, single: false }),
    };
  }
  const items: ResourceObject[] = [];
  const missing: string[] = [];
  for (const name of names) {
    try {
      items.push(await getOne(store.ipam, kind, name));
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist') && !(e instanceof CtlError)) throw e;
      missing.push(name);
    }
  }
  if (missing.length > 0) {
    throw new CtlError(
      'Failed',
      `${kind} ${missing.map((n) => JSON.stringify(n)).join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist`,
    );
  }
  return { text: renderResources(kind, items, { format, single: names.length === 1 }) };
}
