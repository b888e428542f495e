import {
  defaultDatastorePath,
  formatFileWarning,
  repairFileDatastore,
} from '@netledger/datastore-file';
import type { RepairMode } from '@netledger/datastore-file';
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

/** The file store's path as the opener would pick it; repair works on the file store only. */
async function fileStorePath(ctx: CommandContext): Promise<string> {
  const { config } = await ctx.datastoreConfig();
  if (config.type !== 'file') {
    throw new CtlError(
      'Usage',
      `datastore repair works on the file store; this one is ${config.type} (restore it from its own backups)`,
    );
  }
  if (config.path !== undefined) return config.path;
  const user = ctx.io.user?.();
  if (!user) throw new CtlError('Usage', 'datastore repair needs NETLEDGER_DATASTORE_PATH');
  return defaultDatastorePath({ XDG_STATE_HOME: user.xdgStateHome }, user.uid, user.home);
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
      const mode = modeOf(f);
      const path = await fileStorePath(ctx);
      const report = await repairFileDatastore({
        path,
        mode,
        dryRun: bool(f, 'dry-run'),
        // A failed cleanup does not fail the repair: said, as netledgerctl's warnings are.
        onWarning: (w) => ctx.io.stderr(`Warning: ${formatFileWarning(w)}\n`),
      });
      let text = formatRepairReport(report);
      if (report.action !== 'none' && !report.dryRun) {
        const datastore = await ctx.io.openDatastore(
          { type: 'file', path },
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
