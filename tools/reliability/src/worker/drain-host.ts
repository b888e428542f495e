import { libCall } from './call-result.js';
import { releaseUntilDone } from './host-call.js';
import type { HostState } from './host-call.js';

/**
 * Releases every handle the host holds, then its block affinities (which must be empty by then);
 * prints `drained`, or `failed` with the IpamError's code.
 */
export async function drainHost(host: HostState): Promise<void> {
  const { plan, client, emit } = host;
  for (const h of [...host.held.values()]) await releaseUntilDone(host, h);
  host.phase.current = 'drain';
  const base = { host: plan.host, containerId: '', via: 'lib' } as const;
  emit({ ev: 'started', action: 'drain', ...base, t: Date.now() });
  const r = await libCall(async () => {
    await client.releaseHostAffinities(
      { host: plan.host, affinityType: 'host' },
      { mustBeEmpty: true },
    );
    return undefined;
  });
  if (r.ok) emit({ ev: 'drained', host: plan.host, t: Date.now() });
  else
    emit({
      ev: 'failed',
      action: 'drain',
      ...base,
      handle: '',
      code: r.code!,
      message: r.message!,
      t: Date.now(),
      ms: 0,
    });
}
