import type { IPPool, IPReservation, IpamClient, Node, ResourceClient } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import type { ManifestAction } from '../commands/manifests.js';
import { MAX_MANIFEST_BYTES, parseManifests, runManifests } from '../commands/manifests.js';
import { parseKeyValues } from '../commands/ipam-assign.js';
import type { PoolFlags } from '../commands/resources.js';
import {
  createNode,
  createPool,
  createReservation,
  renderNodes,
  renderPools,
  renderReservations,
  updatePool,
} from '../commands/resources.js';
import type { OutputFormat } from '../output/render-output.js';
import { parseOutputFormat } from '../output/render-output.js';
import type { CommandSpec, FlagValues, OptionsConfig } from './command-spec.js';
import { bool, list, str } from './command-spec.js';

const POOL_OPTIONS: OptionsConfig = {
  name: { type: 'string' },
  cidr: { type: 'string' },
  'block-size': { type: 'string' },
  'node-selector': { type: 'string' },
  'namespace-selector': { type: 'string' },
  'allowed-uses': { type: 'string' },
  'assignment-mode': { type: 'string' },
  disabled: { type: 'boolean' },
  enabled: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
};

const POOL_HELP = `  --name N                 the pool's name
  --cidr C                 the pool's CIDR (strictly masked)
  --block-size B           block prefix length (default 26 for IPv4, 122 for IPv6)
  --node-selector S        which nodes may use it (default all())
  --namespace-selector S   which namespaces may use it
  --allowed-uses U,...     Workload, Tunnel, LoadBalancer (default Workload,Tunnel)
  --assignment-mode M      Automatic or Manual
  --disabled / --enabled   disable or enable the pool`;

function poolFlags(f: FlagValues): PoolFlags {
  const flags: { -readonly [K in keyof PoolFlags]: PoolFlags[K] } = {};
  const set = (k: keyof PoolFlags, flag: string): void => {
    const v = str(f, flag);
    if (v !== undefined) (flags as Record<string, unknown>)[k] = v;
  };
  set('cidr', 'cidr');
  set('blockSize', 'block-size');
  set('nodeSelector', 'node-selector');
  set('namespaceSelector', 'namespace-selector');
  set('allowedUses', 'allowed-uses');
  set('assignmentMode', 'assignment-mode');
  if (bool(f, 'disabled') && bool(f, 'enabled')) {
    throw new CtlError('Usage', '--disabled and --enabled cannot be given together');
  }
  if (bool(f, 'disabled')) flags.disabled = true;
  if (bool(f, 'enabled')) flags.disabled = false;
  return flags;
}

/** The name from `--name` or the single positional argument. */
function nameOf(f: FlagValues, args: readonly string[], what: string): string {
  const name = str(f, 'name') ?? args[0];
  if (!name) throw new CtlError('Usage', `${what} needs a name (NAME or --name N)`);
  if (str(f, 'name') !== undefined && args.length > 0) {
    throw new CtlError('Usage', `${what}: give the name once (NAME or --name)`);
  }
  return name;
}

const OUTPUT = { output: { type: 'string', short: 'o' } } as const satisfies OptionsConfig;
const NAME = { name: { type: 'string' } } as const satisfies OptionsConfig;

/** A resource kind's `list` and `delete` commands. */
interface ResourceKind<R> {
  /** The command word (`ippool`). */
  readonly word: string;
  /** Calico's kind, for the delete confirmation (`IPPool`). */
  readonly kind: string;
  readonly listSummary: string;
  readonly deleteSummary: string;
  readonly client: (ipam: IpamClient) => ResourceClient<R>;
  readonly render: (items: readonly R[], format: OutputFormat) => string;
}

const POOLS: ResourceKind<IPPool> = {
  word: 'ippool',
  kind: 'IPPool',
  listSummary: 'List IP pools.',
  deleteSummary: 'Delete an IP pool (its blocks lose their affinities).',
  client: (ipam) => ipam.pools,
  render: renderPools,
};
const NODES: ResourceKind<Node> = {
  word: 'node',
  kind: 'Node',
  listSummary: 'List nodes.',
  deleteSummary: 'Delete a node resource (its IPAM data is left to the GC).',
  client: (ipam) => ipam.nodes,
  render: renderNodes,
};
const RESERVATIONS: ResourceKind<IPReservation> = {
  word: 'reservation',
  kind: 'IPReservation',
  listSummary: 'List IP reservations.',
  deleteSummary: 'Delete an IP reservation.',
  client: (ipam) => ipam.reservations,
  render: renderReservations,
};

/** `<word> list [-o table|json|yaml]` and `<word> delete NAME`. */
function listAndDelete<R>(k: ResourceKind<R>): CommandSpec[] {
  return [
    {
      path: [k.word, 'list'],
      summary: k.listSummary,
      usage: `${k.word} list [-o table|json|yaml]`,
      options: OUTPUT,
      store: 'read',
      async run(ctx, f) {
        const format = parseOutputFormat(str(f, 'output'), 'table');
        return { text: k.render(await k.client((await ctx.store()).ipam).list(), format) };
      },
    },
    {
      path: [k.word, 'delete'],
      summary: k.deleteSummary,
      usage: `${k.word} delete NAME`,
      options: NAME,
      positionals: { min: 0, max: 1 },
      store: 'read',
      async run(ctx, f, args) {
        const name = nameOf(f, args, `${k.word} delete`);
        await k.client((await ctx.store()).ipam).delete(name);
        return { text: `Successfully deleted ${k.kind} ${name}\n` };
      },
    },
  ];
}

function manifestCommand(action: ManifestAction): CommandSpec {
  return {
    path: [action],
    summary: `${action[0]!.toUpperCase()}${action.slice(1)} the IPPool, IPReservation, Node and IPAMConfiguration resources in a file.`,
    usage: `${action} -f FILE${action === 'get' ? ' [-o yaml|json]' : ''}`,
    help: `  -f, --filename FILE   YAML or JSON manifest(s); - for stdin (at most 16 MiB)`,
    options: {
      filename: { type: 'string', short: 'f' },
      ...(action === 'get' ? OUTPUT : {}),
    },
    store: action === 'create' || action === 'apply' ? 'write' : 'read',
    async run(ctx, f) {
      const file = str(f, 'filename');
      if (!file) throw new CtlError('Usage', `${action} needs -f FILE`);
      const format = parseOutputFormat(str(f, 'output'), 'yaml');
      const text = await ctx.readInput(file, { maxBytes: MAX_MANIFEST_BYTES });
      const items = parseManifests(text, file === '-' ? 'stdin' : file);
      return runManifests(await ctx.store(), { action, items, format });
    },
  };
}

/** `ippool`, `node`, `reservation` and the manifest verbs. */
export const RESOURCE_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['ippool', 'create'],
    summary: 'Create an IP pool.',
    usage:
      'ippool create --name N --cidr C [--block-size B] [--node-selector S] [--allowed-uses U,...] [--disabled]',
    help: POOL_HELP,
    options: POOL_OPTIONS,
    positionals: { min: 0, max: 1 },
    store: 'write',
    async run(ctx, f, args) {
      const name = nameOf(f, args, 'ippool create');
      const flags = poolFlags(f);
      return createPool((await ctx.store()).ipam, name, flags);
    },
  },
  {
    path: ['ippool', 'update'],
    summary: 'Change an IP pool (CIDR and block size are immutable).',
    usage: 'ippool update NAME [--node-selector S] [--allowed-uses U,...] [--disabled|--enabled]',
    help: POOL_HELP,
    options: POOL_OPTIONS,
    positionals: { min: 0, max: 1 },
    store: 'read',
    async run(ctx, f, args) {
      const name = nameOf(f, args, 'ippool update');
      const flags = poolFlags(f);
      return updatePool((await ctx.store()).ipam, name, flags);
    },
  },
  {
    path: ['ippool', 'get'],
    summary: 'Show one IP pool.',
    usage: 'ippool get NAME [-o table|json|yaml]',
    options: { ...OUTPUT, ...NAME },
    positionals: { min: 0, max: 1 },
    store: 'read',
    async run(ctx, f, args) {
      const format = parseOutputFormat(str(f, 'output'), 'yaml');
      const pool = await (await ctx.store()).ipam.pools.get(nameOf(f, args, 'ippool get'));
      return { text: renderPools([pool], format) };
    },
  },
  ...listAndDelete(POOLS),
  {
    path: ['node', 'create'],
    summary: 'Create a node.',
    usage: 'node create NAME [--label K=V]...',
    options: { ...NAME, label: { type: 'string', multiple: true } },
    positionals: { min: 0, max: 1 },
    store: 'write',
    async run(ctx, f, args) {
      const name = nameOf(f, args, 'node create');
      const labels = parseKeyValues(list(f, 'label'), '--label');
      return createNode((await ctx.store()).ipam, name, labels);
    },
  },
  ...listAndDelete(NODES),
  {
    path: ['reservation', 'create'],
    summary: 'Create an IP reservation.',
    usage: 'reservation create NAME --cidrs C,...',
    options: { ...NAME, cidrs: { type: 'string' } },
    positionals: { min: 0, max: 1 },
    store: 'write',
    async run(ctx, f, args) {
      const name = nameOf(f, args, 'reservation create');
      const cidrs = (str(f, 'cidrs') ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      return createReservation((await ctx.store()).ipam, name, cidrs);
    },
  },
  ...listAndDelete(RESERVATIONS),
  ...(['create', 'apply', 'replace', 'delete', 'get'] as const).map(manifestCommand),
];
