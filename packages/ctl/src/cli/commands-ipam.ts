import type { IPPoolAllowedUse } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import { assignAddresses, parseKeyValues, releaseHandle } from '../commands/ipam-assign.js';
import { configureIpam } from '../commands/ipam-configure.js';
import { showBorrowed, showConfiguration, showIp, showUtilization } from '../commands/ipam-show.js';
import { showPoolMap } from '../commands/pool-map.js';
import type { OutputFormat } from '../output/render-output.js';
import { parseOutputFormat, renderOutput } from '../output/render-output.js';
import type { CommandSpec } from './command-spec.js';
import { bool, list, str } from './command-spec.js';

const count = (text: string | undefined, flag: string): number | undefined => {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text))
    throw new CtlError('Usage', `${flag} takes a number, got ${JSON.stringify(text)}`);
  return Number(text);
};

const SHOW_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml', 'html'];

/** `ipam show`, `ipam configure`, `ipam assign`, `ipam release-handle`. */
export const IPAM_BASIC_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['ipam', 'show'],
    summary:
      'Show IP pool and block utilization, borrowed addresses, the configuration, or one IP.',
    usage:
      'ipam show [--ip IP | --show-blocks | --show-borrowed | --show-configuration] [-o table|json|yaml|html]',
    example: 'netledgerctl ipam show --show-blocks -o html > pools.html',
    help: `  --ip IP               show who holds one address
  --show-blocks         add a row per allocation block
  --show-borrowed       list addresses used by a node other than their block's owner
  --show-configuration  show the IPAM configuration
  -o, --output FORMAT   table (default), json or yaml; html with --show-blocks: one
                        self-contained page with a map of each pool's blocks and the table
Precedence when several are given: --ip, --show-blocks, --show-borrowed, --show-configuration.`,
    options: {
      ip: { type: 'string' },
      'show-blocks': { type: 'boolean' },
      'show-borrowed': { type: 'boolean' },
      'show-configuration': { type: 'boolean' },
      output: { type: 'string', short: 'o' },
    },
    store: 'read-only',
    async run(ctx, f) {
      const format = parseOutputFormat(str(f, 'output'), 'table', SHOW_FORMATS);
      const ip = str(f, 'ip');
      if (format === 'html' && (ip !== undefined || !bool(f, 'show-blocks'))) {
        throw new CtlError('Usage', 'output format "html" is only for ipam show --show-blocks');
      }
      const { ipam, datastore } = await ctx.store();
      if (ip !== undefined) return showIp(ipam, ip);
      if (format === 'html') return showPoolMap(ipam, datastore);
      const shown = bool(f, 'show-blocks')
        ? await showUtilization(ipam, { showBlocks: true })
        : bool(f, 'show-borrowed')
          ? await showBorrowed(datastore)
          : bool(f, 'show-configuration')
            ? await showConfiguration(ipam)
            : await showUtilization(ipam, { showBlocks: false });
      return { text: renderOutput(format, shown.data, () => shown.text) };
    },
  },
  {
    path: ['ipam', 'configure'],
    summary: 'Change the IPAM configuration.',
    usage:
      'ipam configure [--strictaffinity true|false] [--max-blocks-per-host N] [--kubevirt-ip-persistence Enabled|Disabled] [--ip-cooldown-seconds N]',
    example: 'netledgerctl ipam configure --strictaffinity true --max-blocks-per-host 4',
    help: `  --strictaffinity BOOL             only a block's affine host may assign from it
  --max-blocks-per-host N           cap on blocks per host (needs strict affinity)
  --kubevirt-ip-persistence VALUE   Enabled or Disabled
  --ip-cooldown-seconds N           seconds a released address waits before reuse (0..1200)`,
    options: {
      strictaffinity: { type: 'string' },
      'max-blocks-per-host': { type: 'string' },
      'kubevirt-ip-persistence': { type: 'string' },
      'ip-cooldown-seconds': { type: 'string' },
    },
    store: 'write',
    async run(ctx, f) {
      const { ipam } = await ctx.store();
      return configureIpam(ipam, {
        strictAffinity: str(f, 'strictaffinity'),
        maxBlocksPerHost: str(f, 'max-blocks-per-host'),
        kubeVirtIpPersistence: str(f, 'kubevirt-ip-persistence'),
        ipCooldownSeconds: str(f, 'ip-cooldown-seconds'),
      });
    },
  },
  {
    path: ['ipam', 'assign'],
    summary: 'Assign addresses to a handle (for scripts).',
    usage:
      'ipam assign --node NODE [--handle H] [--ip IP | --num4 N --num6 N] [--pool P]... [--attr K=V]... [--use Workload|Tunnel|LoadBalancer] [-o table|json|yaml]',
    example: 'netledgerctl ipam assign --node node-1 --handle lb-1 --num4 1 --use LoadBalancer',
    help: `  --node NODE      the host the addresses are for (its blocks are used or claimed)
  --handle H       the handle that will own them
  --ip IP          assign this address (otherwise auto-assign)
  --num4 N         how many IPv4 addresses to auto-assign (default: 1 IPv4, none with --num6)
  --num6 N         how many IPv6 addresses to auto-assign
  --pool P         restrict to pools (name or CIDR), repeatable
  --attr K=V       owner attribute, repeatable (pod, namespace, node, type, ...)
  --use USE        intended use (default Workload)
  -o, --output F   table (default: the addresses), json or yaml`,
    options: {
      node: { type: 'string' },
      handle: { type: 'string' },
      ip: { type: 'string' },
      num4: { type: 'string' },
      num6: { type: 'string' },
      pool: { type: 'string', multiple: true },
      attr: { type: 'string', multiple: true },
      use: { type: 'string' },
      output: { type: 'string', short: 'o' },
    },
    store: 'write',
    async run(ctx, f) {
      const format = parseOutputFormat(str(f, 'output'), 'table');
      const node = str(f, 'node');
      if (!node) throw new CtlError('Usage', 'ipam assign needs --node');
      const use = str(f, 'use');
      if (use !== undefined && !['Workload', 'Tunnel', 'LoadBalancer'].includes(use)) {
        throw new CtlError('Usage', `--use must be Workload, Tunnel or LoadBalancer`);
      }
      const attrs = parseKeyValues(list(f, 'attr'), '--attr');
      const num4 = count(str(f, 'num4'), '--num4');
      const num6 = count(str(f, 'num6'), '--num6');
      const handle = str(f, 'handle');
      const ip = str(f, 'ip');
      const { ipam } = await ctx.store();
      const out = await assignAddresses(ipam, {
        node,
        ...(handle !== undefined && { handle }),
        ...(ip !== undefined && { ip }),
        ...(num4 !== undefined && { num4 }),
        ...(num6 !== undefined && { num6 }),
        pools: list(f, 'pool'),
        ...(Object.keys(attrs).length > 0 && { attrs }),
        ...(use !== undefined && { use: use as IPPoolAllowedUse }),
      });
      return { text: renderOutput(format, out.data, () => out.text) };
    },
  },
  {
    path: ['ipam', 'release-handle'],
    summary: 'Release every address of a handle (for scripts).',
    usage: 'ipam release-handle --handle H',
    help: '  --handle H   the handle whose addresses are released',
    example: 'netledgerctl ipam release-handle --handle lb-1',
    options: { handle: { type: 'string' } },
    store: 'read',
    async run(ctx, f) {
      const handle = str(f, 'handle');
      if (!handle) throw new CtlError('Usage', 'ipam release-handle needs --handle');
      const { ipam } = await ctx.store();
      return releaseHandle(ipam, handle);
    },
  },
];
