import { isIpamError } from '@netledger/ipam-core';
import { planColdBlocks } from '../plan-blocks.js';
import type { PassRun } from './pass-run.js';

/**
 * The third phase, the cold-IP backstop (a leader only): frees the cooled-down addresses of the
 * blocks whose cooldown has ended, then asks for the pass to run again when the next one ends.
 * Returns how many blocks had addresses freed. A stale view is left to the watch; another failure
 * backs that block off.
 */
export async function collectColdBlocks(run: PassRun): Promise<number> {
  const { state, backoff, nowMs, ports } = run.ctx;
  let collected = 0;
  for (const cidr of planColdBlocks(state, {
    nowMs,
    isBackedOff: (c) => backoff.isBackedOff(`cold:${c}`, nowMs),
  })) {
    if (!run.mayWrite()) break;
    try {
      if (await ports.ipam.garbageCollectColdIps(cidr)) {
        collected++;
        ports.logger.log('info', 'freed cooled-down addresses of an idle block', { block: cidr });
      }
      backoff.succeeded(`cold:${cidr}`);
    } catch (e) {
      // A stale view (changed or deleted since): the watch delivers the fresh block.
      if (!isIpamError(e, 'UpdateConflict', 'DoesNotExist'))
        run.fail({ operation: 'cold-ip-gc', item: `cold:${cidr}` }, e, { block: cidr });
    }
  }
  for (const earliest of state.coldBlocks.values())
    run.deadline(earliest + state.ipCooldownSeconds * 1000);
  return collected;
}
