import type { Datastore } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import { toCtlError } from '../config/datastore-config.js';
import { parseCheckReport, serializeCheckReport } from '../commands/check-report.js';
import { setDatastoreLock } from '../commands/datastore-lock.js';
import {
  MAX_EXPORT_BYTES,
  exportDatastore,
  importDatastore,
  parseExport,
} from '../commands/datastore-migrate.js';
import { parseKeyValues } from '../commands/ipam-assign.js';
import { checkIpam } from '../commands/ipam-check.js';
import { releaseFromReports, releaseIp } from '../commands/ipam-release.js';
import { splitPool } from '../commands/ipam-split.js';
import { CTL_VERSION } from '../version.js';
import type { CommandContext, CommandSpec } from './command-spec.js';
import { bool, list, str } from './command-spec.js';

/** The injected clock and randomness of a run (tests pin them), for what a command creates. */
const clockAndRandom = (ctx: CommandContext) => ({
  ...(ctx.io.clock && { clock: ctx.io.clock }),
  ...(ctx.io.random && { random: ctx.io.random }),
});

/** `ipam check`, `ipam release`, `datastore migrate lock|unlock`. */
export const CHECK_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['ipam', 'check'],
    summary: 'Check IPAM for leaked addresses, orphaned handles and invalid blocks.',
    usage: 'ipam check [--show-all-ips] [--show-problem-ips] [-o REPORT.json] [--kubeconfig PATH]',
    example: 'netledgerctl ipam check --show-problem-ips -o report.json',
    help: `  --show-all-ips       list every allocation and user (implies --show-problem-ips)
  --show-problem-ips   list each problem address and handle
  -o, --output FILE    write the machine-readable report (input of 'ipam release --from-report')
  --kubeconfig PATH    the Kubernetes API (default: $KUBECONFIG; the Kubernetes store's own
                       otherwise): LoadBalancer Services' addresses are in use when the
                       KubeControllersConfiguration "default" has controllers.loadBalancer
Lock the datastore first ('datastore migrate lock') if the report is to be used for release.`,
    options: {
      'show-all-ips': { type: 'boolean' },
      'show-problem-ips': { type: 'boolean' },
      output: { type: 'string', short: 'o' },
      kubeconfig: { type: 'string' },
    },
    store: 'read-only',
    async run(ctx, f) {
      const { datastore } = await ctx.store();
      const kubeconfig = str(f, 'kubeconfig') ?? (ctx.io.env.KUBECONFIG || undefined);
      // The Kubernetes API: the Kubernetes store's own connection, else one from the kubeconfig
      // (opened as a Kubernetes store for its object reader; nothing is sent until a read).
      let kubernetes = await ctx.io.kubernetesReaderOf(datastore);
      let kubeStore: Datastore | undefined;
      if (!kubernetes && kubeconfig !== undefined) {
        try {
          kubeStore = await ctx.io.openDatastore(
            { type: 'kubernetes', kubeconfig },
            { mayCreate: false },
          );
        } catch (e) {
          throw toCtlError(e);
        }
        kubernetes = await ctx.io.kubernetesReaderOf(kubeStore);
      }
      let result;
      try {
        result = await checkIpam(datastore, {
          showAllIps: bool(f, 'show-all-ips'),
          showProblemIps: bool(f, 'show-problem-ips'),
          version: CTL_VERSION,
          nowMs: ctx.io.clock?.now() ?? Date.now(),
          ...(kubeconfig !== undefined && { kubeconfig }),
          ...(kubernetes && { kubernetes }),
        });
      } finally {
        await kubeStore?.close();
      }
      const file = str(f, 'output');
      if (file !== undefined) {
        try {
          await ctx.io.writeFile(file, serializeCheckReport(result.report), 0o644);
        } catch (e) {
          throw new CtlError('Failed', `cannot write report ${file}: ${(e as Error).message}`);
        }
      }
      return { text: result.text };
    },
  },
  {
    path: ['ipam', 'release'],
    summary: 'Release one address, or the leaks and orphaned handles of check reports.',
    usage: 'ipam release [--ip IP | --from-report FILE [--from-report FILE]...] [--force]',
    example: 'netledgerctl ipam release --from-report report.json',
    help: `  --ip IP              release one address (no handle or sequence check)
  --from-report FILE   release what every given report (from 'ipam check -o') found leaked
  --force              release although the datastore is unlocked or the report is from
                       another version (never across clusters or with only stale reports)
Workflow: datastore migrate lock; ipam check -o r.json; ipam release --from-report r.json;
datastore migrate unlock.`,
    options: {
      ip: { type: 'string' },
      'from-report': { type: 'string', multiple: true },
      force: { type: 'boolean' },
    },
    store: 'read',
    async run(ctx, f) {
      const ip = str(f, 'ip');
      const files = list(f, 'from-report');
      if (ip !== undefined && files.length > 0) {
        throw new CtlError('Usage', 'give --ip or --from-report, not both');
      }
      if (ip === undefined && files.length === 0) return { text: '' };
      // Parse every report before touching the datastore: a corrupt one changes nothing.
      const reports = [];
      for (const file of files) {
        reports.push({ source: file, report: parseCheckReport(await ctx.readInput(file), file) });
      }
      const store = await ctx.store();
      if (ip !== undefined) return releaseIp(store.ipam, ip);
      return releaseFromReports(store, {
        reports,
        force: bool(f, 'force'),
        version: CTL_VERSION,
        progress: (t) => ctx.progress(t),
      });
    },
  },
  {
    path: ['ipam', 'split'],
    summary: 'Split an IP pool into N smaller pools (datastore must be locked).',
    usage: 'ipam split N (--name POOL | --cidr CIDR)',
    example: 'netledgerctl ipam split 4 --name pods',
    help: `  N              a power of two, at least 2; the new pools may not be smaller than a block
  --name POOL    the pool to split
  --cidr CIDR    or its CIDR`,
    options: { name: { type: 'string' }, cidr: { type: 'string' } },
    positionals: { min: 1, max: 1 },
    store: 'read',
    async run(ctx, f, args) {
      const name = str(f, 'name');
      const cidr = str(f, 'cidr');
      const out = await splitPool(await ctx.store(), {
        parts: args[0]!,
        ...(name !== undefined && { name }),
        ...(cidr !== undefined && { cidr }),
        nowMs: ctx.io.clock?.now() ?? Date.now(),
      });
      return { text: out.text };
    },
  },
  {
    path: ['datastore', 'migrate', 'lock'],
    summary: 'Lock the datastore (ClusterInformation datastoreReady=false).',
    usage: 'datastore migrate lock',
    example: 'netledgerctl datastore migrate lock',
    options: {},
    store: 'write',
    async run(ctx) {
      return setDatastoreLock((await ctx.store()).datastore, {
        locked: true,
        ...clockAndRandom(ctx),
      });
    },
  },
  {
    path: ['datastore', 'migrate', 'unlock'],
    summary: 'Unlock the datastore (ClusterInformation datastoreReady=true).',
    usage: 'datastore migrate unlock',
    example: 'netledgerctl datastore migrate unlock',
    options: {},
    store: 'read',
    async run(ctx) {
      return setDatastoreLock((await ctx.store()).datastore, {
        locked: false,
        ...clockAndRandom(ctx),
      });
    },
  },
  {
    path: ['datastore', 'migrate', 'export'],
    summary: 'Print every resource and all IPAM data, for import into another datastore.',
    usage: 'datastore migrate export [--rename-node OLD=NEW]... > FILE',
    example: 'netledgerctl datastore migrate export --rename-node old-1=new-1 > export.txt',
    help: `  --rename-node OLD=NEW   rename a node in the export: its Node, block affinities, owner
                          attributes and tunnel handles (v4 and v6), repeatable
Lock the datastore first so nothing changes while exporting. Progress goes to stderr: a bar
on a terminal, else a line every few seconds.`,
    options: { 'rename-node': { type: 'string', multiple: true } },
    store: 'read',
    async run(ctx, f) {
      const renames = new Map(
        Object.entries(parseKeyValues(list(f, 'rename-node'), '--rename-node')),
      );
      const { datastore } = await ctx.store();
      const progress = ctx.startProgress('export');
      try {
        const out = await exportDatastore(datastore, {
          renames,
          onProgress: (done, total, note) => progress.update(done, total, note),
        });
        return { text: out.text };
      } finally {
        progress.finish();
      }
    },
  },
  {
    path: ['datastore', 'migrate', 'import'],
    summary: 'Write an export into an empty datastore (left locked).',
    usage: 'datastore migrate import -f FILE',
    example: 'netledgerctl datastore migrate import -f export.txt',
    help: `  -f, --filename FILE   the output of datastore migrate export; - for stdin (at most 256 MiB)
Progress goes to stderr: a bar on a terminal, else a line every few seconds.`,
    options: { filename: { type: 'string', short: 'f' } },
    store: 'write',
    async run(ctx, f) {
      const file = str(f, 'filename');
      if (!file) throw new CtlError('Usage', 'datastore migrate import needs -f FILE');
      const text = await ctx.readInput(file, { maxBytes: MAX_EXPORT_BYTES });
      const parsed = parseExport(text, file === '-' ? 'stdin' : file);
      const { datastore } = await ctx.store();
      const progress = ctx.startProgress('import');
      try {
        return await importDatastore(datastore, parsed, (done, total) =>
          progress.update(done, total),
        );
      } finally {
        progress.finish();
      }
    },
  },
];
