// The errno values rtnetlink answers with, named in one place: the driver matches on these
// constants, and every netlink error it reports reads `operation not permitted (EPERM)`, never
// `errno 1`. Numbers are Linux's (rtnetlink exists only there).
import { getSystemErrorMap } from 'node:util';

/** The errno values the rtnetlink driver tells apart (Linux numbering). */
export const ERRNO = {
  EPERM: 1,
  EACCES: 13,
  EEXIST: 17,
  ENODEV: 19,
  EAFNOSUPPORT: 97,
  EADDRNOTAVAIL: 99,
} as const;

// Node's own table (libuv's names and messages): on Linux its keys are the negated errno values.
const KNOWN: ReadonlyMap<number, [string, string]> = getSystemErrorMap();

/** Above this, Node's table holds libuv's own codes (EOF, getaddrinfo errors), not the kernel's. */
const LAST_KERNEL_ERRNO = 511;

/**
 * Names a positive errno for a message: `operation not permitted (EPERM)`; a number that is not a
 * kernel errno Node knows stays a number (`errno 4095`). Never throws.
 */
export function describeErrno(errno: number): string {
  const known = errno > 0 && errno <= LAST_KERNEL_ERRNO ? KNOWN.get(-errno) : undefined;
  return known === undefined ? `errno ${errno}` : `${known[1]} (${known[0]})`;
}
