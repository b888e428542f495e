/** The signals a daemon stops on: Kubernetes' and systemd's SIGTERM, a terminal's SIGINT. */
type StopSignalName = 'SIGTERM' | 'SIGINT';

/**
 * Resolves with the name of the first SIGTERM or SIGINT this process receives from the call on.
 * Its listeners take the signals' default action away (the process does not end on them), so
 * the caller stops in its own time and exits itself; they stay registered after the first one.
 */
export function stopSignal(): Promise<StopSignalName> {
  return new Promise((resolve) => {
    for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => resolve(s));
  });
}
