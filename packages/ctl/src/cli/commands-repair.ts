import { isDatastoreConfigError } from '@netledger/datastore-config';
import type {
  DatastoreConfig,
  RepairMode,
  RepairOptions,
  RepairReport,
} from '@netledger/datastore-config';
import { CtlError } from '../ctl-error.js';
import { formatRepairReport } from '../commands/datastore-repair.js';
import { checkIpam } from '../commands/ipam-check.js';
import { CTL_VERSION } from '../version.js';
import type { CommandContext, CommandSpec, FlagValues } from './command-spec.js';
import { bool } from './command-spec.js';

function modeOf(f: FlagValues): RepairMode {
  if (bool(f, 'previous') && bool(f, 'salvage')) {
    throw new CtlError('Usage', 'give --previous or --salvage, not both');
  }
  return bool(f, 'previous') ? 'previous' : bool(f, 'salvage') ? 'salvage' : 'auto';
}

/** The opener's repair; a store it cannot repair (not a file store) is a usage error. */
async function repair(
  ctx: CommandContext,
  config: DatastoreConfig,
  options: RepairOptions,
): Promise<RepairReport> {
  try {
    return await ctx.io.repairDatastore(config, options);
  } catch (e) {
    if (!isDatastoreConfigError(e, 'Unsupported')) throw e;
    throw new CtlError('Usage', `datastore ${e.message}`, { cause: e });
  }
}

/** `datastore repair`. */
export const REPAIR_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['datastore', 'repair'],
    summary: 'Bring back a file store that no longer opens (previous generation, or salvage).',
    usage: 'datastore repair [--previous | --salvage] [--dry-run]',
    example: 'netledgerctl datastore repair --dry-run',
    help: `  --previous   restore the previous good generation (<store>.prev)
  --salvage    keep every record of the damaged file that checks
               (default: the previous generation when it checks, else salvage)
  --dry-run    report what would be done; change nothing
A missing store file is restored from <store>.prev. Refuses while another process holds
the store lock, and refuses (changing nothing) a symbolic link, anything but a regular
file, and a file that is not a netledger store. The damaged file is kept as
<store>.corrupt-<time>; every key lost is listed; ipam check runs on the repaired store.`,
    options: {
      previous: { type: 'boolean' },
      salvage: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    },
    store: 'none',
    async run(ctx, f) {
      const options = { mode: modeOf(f), dryRun: bool(f, 'dry-run') };
      const report = await repair(ctx, (await ctx.datastoreConfig()).config, options);
      let text = formatRepairReport(report);
      if (report.action !== 'none' && !report.dryRun) {
        const datastore = await ctx.io.openDatastore(
          { type: 'file', path: report.path },
          { mayCreate: false, readOnly: true },
        );
        try {
          const check = await checkIpam(datastore, {
            showAllIps: false,
            showProblemIps: true,
            version: CTL_VERSION,
            nowMs: ctx.io.clock?.now() ?? Date.now(),
          });
          text += `\nipam check on the repaired store:\n${check.text}`;
        } finally {
          await datastore.close();
        }
      }
      return { text };
    },
  },
];
