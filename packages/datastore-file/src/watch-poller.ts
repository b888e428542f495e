// The poll that lets a watch in one process see the file written by another: every interval
// while a stream is open, never two polls at once.
import { IpamError } from '@netledger/ipam-core';

/** Starts and stops the poll as streams open and close. */
export interface WatchPoller {
  /** Polls every interval while `active`, else stops. */
  setActive(active: boolean): void;
}

/**
 * A poller calling `poll` every `intervalMs` while active; a poll still running when the next is
 * due is not joined by another. A failed poll is told to `onError` as an `IpamError`
 * (`Unavailable` for anything else thrown).
 */
export function createWatchPoller(o: {
  readonly intervalMs: number;
  readonly poll: () => Promise<void>;
  readonly onError: (error: IpamError) => void;
}): WatchPoller {
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  const tick = (): void => {
    if (polling) return;
    polling = true;
    o.poll()
      .catch((e: unknown) => {
        o.onError(
          e instanceof IpamError ? e : new IpamError('Unavailable', String(e), { cause: e }),
        );
      })
      .finally(() => {
        polling = false;
      });
  };
  return {
    setActive(active) {
      if (active && !timer) timer = setInterval(tick, o.intervalMs);
      if (!active && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    },
  };
}
