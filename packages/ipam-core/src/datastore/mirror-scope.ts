import { IpamError } from '../errors.js';
import type { DatastoreKey, Kind, ListOptions } from '../model/keys.js';
import { matchesListOptions } from '../model/keys.js';

/** The kinds mirrored by default: read on every assignment, written rarely. */
export const DEFAULT_MIRRORED_KINDS: readonly Kind[] = [
  'IPPool',
  'IPReservation',
  'IPAMConfig',
  'Node',
  'BlockAffinity',
];

/** What a read mirror holds: at most one list per kind. */
export interface MirrorScope {
  /** The lists mirrored, one per kind. */
  readonly lists: readonly ListOptions[];
  /** Whether the mirror holds `key`'s object (a key of a mirrored kind, within its list). */
  holds(key: DatastoreKey): boolean;
  /** Whether every object a list with `options` returns is one the mirror holds. */
  covered(options: ListOptions): boolean;
}

/** Whether every object a list with `options` returns is one `scope` mirrors. */
function covers(scope: ListOptions, options: ListOptions): boolean {
  if (scope.kind !== options.kind) return false;
  const s = scope as Readonly<Record<string, unknown>>;
  const o = options as Readonly<Record<string, unknown>>;
  return Object.keys(s).every((field) => s[field] === undefined || s[field] === o[field]);
}

/** The lists to mirror, one per kind. */
function mirroredLists(options: {
  kinds?: readonly Kind[] | undefined;
  lists?: readonly ListOptions[] | undefined;
}): ListOptions[] {
  if (options.lists && options.kinds)
    throw new IpamError('InvalidArgument', 'a mirror takes kinds or lists, not both');
  const lists =
    options.lists ??
    [...new Set(options.kinds ?? DEFAULT_MIRRORED_KINDS)].map((kind) => ({ kind }));
  const kinds = new Set(lists.map((l) => l.kind));
  if (kinds.size !== lists.length)
    throw new IpamError('InvalidArgument', 'a mirror takes at most one list per kind');
  return [...lists];
}

/**
 * The {@link MirrorScope} of `kinds` (each listed whole; default {@link DEFAULT_MIRRORED_KINDS})
 * or of `lists`. `InvalidArgument` for both, or for two lists of one kind.
 */
export function createMirrorScope(options: {
  kinds?: readonly Kind[] | undefined;
  lists?: readonly ListOptions[] | undefined;
}): MirrorScope {
  const lists = mirroredLists(options);
  const scopeOf = (kind: Kind): ListOptions | undefined => lists.find((l) => l.kind === kind);
  return {
    lists,
    holds: (key) => {
      const scope = scopeOf(key.kind);
      return scope !== undefined && matchesListOptions(key, scope);
    },
    covered: (o) => {
      const scope = scopeOf(o.kind);
      return scope !== undefined && covers(scope, o);
    },
  };
}
