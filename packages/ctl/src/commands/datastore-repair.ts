import type { LostKey, RepairReport } from '@netledger/datastore-config';
import { pathToKey } from '@netledger/ipam-core/adapter';

/** What losing (or reverting) one object means for IPAM, by its kind. */
function ipamMeaning(path: string): string {
  switch (pathToKey(path)?.kind) {
    case 'IPAMBlock':
      return 'addresses this block recorded in the lost change are free again and may be handed out twice: find their workloads (ipam check, ipam show) before assigning in this block';
    case 'IPAMHandle':
      return 'the handle count may no longer match its blocks (unless they were lost with it, as one transaction): ipam check reports it; ipam release fixes it';
    case 'BlockAffinity':
      return "the host's claim on this block is gone or older: the block may be claimed again, or borrowed";
    case 'IPPool':
    case 'IPReservation':
    case 'IPAMConfig':
    case 'Node':
    case 'ClusterInformation':
      return 'configuration: check it and apply it again';
    case 'IPAMHost':
    case undefined:
      return 'not IPAM allocation state';
  }
}

const ACTIONS: Record<Exclude<RepairReport['action'], 'none'>, string> = {
  'restored-previous': 'Restored the previous generation',
  salvaged: 'Salvaged every record that checks',
};

function lostLines(lost: readonly LostKey[]): string[] {
  if (lost.length === 0) return ['Lost: nothing.'];
  const width = Math.max(...lost.map((l) => l.path.length));
  return [
    `Lost (${lost.length} ${lost.length === 1 ? 'key' : 'keys'}):`,
    ...lost.map((l) => `  ${l.path.padEnd(width)}  ${l.kind}: ${l.reason}`),
    'What that means for IPAM:',
    ...[...new Set(lost.map((l) => ipamMeaning(l.path)))].map((m) => `  - ${m}`),
  ];
}

/**
 * The text of `datastore repair`'s report: the problem, what was (or would be) done, where the
 * damaged file is kept, and every key lost with what it means for IPAM.
 */
export function formatRepairReport(report: RepairReport): string {
  if (report.action === 'none')
    return `${report.path}: the datastore checks in full; nothing to repair.\n`;
  const lines = [
    `${report.problem ?? report.path}`,
    `${report.dryRun ? 'Would do: ' : ''}${ACTIONS[report.action]}: ${report.objects ?? 0} objects, revision ${report.revision ?? 0}.`,
    ...(report.keptAs ? [`The damaged file is kept as ${report.keptAs}.`] : []),
    ...(report.missing
      ? [
          'The store file was missing: what its last write changed after the previous generation, if anything, is lost and cannot be named.',
        ]
      : [
          ...lostLines(report.lost ?? []),
          ...(report.complete === false
            ? [
                'The damaged file could not be read to its end: keys past the damage cannot be named.',
              ]
            : []),
        ]),
  ];
  return `${lines.join('\n')}\n`;
}
