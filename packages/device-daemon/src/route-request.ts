import { DeviceError } from './device-error.js';
import type { RouteSocket } from './netlink-bridge-driver.js';
import { describeErrno } from './netlink-errno.js';
import { decodeErrno, NLM_F, NLMSG_ERROR } from './rtnetlink.js';

/** How long one rtnetlink request may wait for its answer. */
const TIMEOUT_MS = 5000;

/** Throws the `HostFailure` of a refused request: `what` and the errno's name. */
export function failNetlink(what: string, errno: number): never {
  throw new DeviceError('HostFailure', `netlink ${what}: ${describeErrno(errno)}`);
}

async function exchange(
  socket: RouteSocket,
  request: { readonly type: number; readonly body: Uint8Array; readonly flags: number },
  what: string,
): Promise<readonly { readonly type: number; readonly data: Uint8Array }[]> {
  try {
    const [msgs] = await socket.request(request.type, request.body, {
      flags: request.flags,
      checkError: false,
      timeout: TIMEOUT_MS,
    });
    return msgs;
  } catch (e) {
    throw new DeviceError('HostFailure', `netlink ${what}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/**
 * Sends one request (`flags` default none) and reads its answer: the errno of an error message
 * (0 for an ack) or the first answer's body. A failed exchange throws `HostFailure` naming `what`.
 */
export async function routeCall(
  socket: RouteSocket,
  request: { readonly type: number; readonly body: Uint8Array; readonly flags?: number },
  what: string,
): Promise<{ errno: number; body: Uint8Array | undefined }> {
  const msgs = await exchange(socket, { ...request, flags: request.flags ?? 0 }, what);
  const first = msgs[0];
  if (first === undefined) return { errno: 0, body: undefined };
  if (first.type === NLMSG_ERROR) return { errno: decodeErrno(first.data), body: undefined };
  return { errno: 0, body: first.data };
}

/**
 * Sends a dump request and returns the bodies of the answers of `answer` type. A refused dump or
 * a failed exchange throws `HostFailure` naming `what`.
 */
export async function routeDump(
  socket: RouteSocket,
  request: { readonly type: number; readonly body: Uint8Array; readonly answer: number },
  what: string,
): Promise<Uint8Array[]> {
  const msgs = await exchange(socket, { ...request, flags: NLM_F.DUMP }, what);
  const first = msgs[0];
  if (first?.type === NLMSG_ERROR) {
    const errno = decodeErrno(first.data);
    if (errno !== 0) failNetlink(what, errno);
  }
  return msgs.filter((m) => m.type === request.answer).map((m) => m.data);
}
