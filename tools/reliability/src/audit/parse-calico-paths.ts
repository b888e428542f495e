import type { RawBlock, RawHandle, RawIpam } from './raw-ipam.js';

const BLOCK = /^\/calico\/ipam\/v2\/assignment\/ipv4\/block\/(.+)$/;
const HANDLE = /^\/calico\/ipam\/v2\/handle\/(.+)$/;
const AFFINITY = /^\/calico\/ipam\/v2\/host\/([^/]+)\/ipv4\/block\/(.+)$/;

/**
 * The IPAM objects of an etcd-layout key space (etcd itself, or the file store's `entries`): keys
 * are Calico's paths, values Calico's JSON text. Other keys are ignored; a value that is not JSON
 * throws naming its key.
 */
export function parseCalicoPaths(entries: Iterable<readonly [string, string]>): RawIpam {
  const blocks: RawBlock[] = [];
  const handles: RawHandle[] = [];
  const affinities: { host: string; cidr: string; state: string }[] = [];
  for (const [path, text] of entries) {
    const parse = (): Record<string, unknown> => {
      try {
        return JSON.parse(text) as Record<string, unknown>;
      } catch (e) {
        throw new Error(`${path}: not JSON (${(e as Error).message})`, { cause: e });
      }
    };
    const handle = HANDLE.exec(path);
    const affinity = AFFINITY.exec(path);
    if (BLOCK.test(path)) {
      blocks.push(parse() as unknown as RawBlock);
    } else if (handle) {
      const v = parse() as { block?: Record<string, number>; deleted?: boolean };
      handles.push({ handleId: handle[1]!, block: v.block ?? {}, deleted: v.deleted ?? false });
    } else if (affinity) {
      const v = parse() as { state?: string };
      affinities.push({
        host: affinity[1]!,
        cidr: affinity[2]!.replace('-', '/'),
        state: v.state ?? '',
      });
    }
  }
  return { blocks, handles, affinities };
}
