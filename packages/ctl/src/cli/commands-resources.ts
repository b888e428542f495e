import type { IpamClient, ResourceClient } from '@netledger/ipam-core';
import { CtlError } from '../ctl-error.js';
import type { ManifestAction } from '../commands/manifests.js';
import { MAX_MANIFEST_BYTES, parseManifests, runManifests } from '../commands/manifests.js';
import { parseKeyValues } from '../commands/ipam-assign.js';
import { getResources } from '../commands/get-resources.js';
import type { ResourceKind, ResourceObject } from '../commands/resource-kind.js';
import { renderResources } from '../commands/render-resources.js';
import type { PoolFlags } from '../commands/resources.js';
import { createNode, createPool, createReservation, updatePool } from '../commands/resources.js';
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
};

const POOL_HELP = `  --name N                 the pool's name (or NAME)
  --cidr C                 the pool's CIDR (strictly masked)
  --block-size B           block prefix length (default 26 for IPv4, 122 for IPv6)
  --node-selector S        which nodes may use it (default all())
  --namespace-selector S   which namespaces may use it
  --allowed-uses U,...     Workload, Tunnel, LoadBalancer (default Workload,Tunnel)
  --assignment-mode M      Automatic or Manual
  --disabled               disable the pool (no new addresses from it)
  --enabled                enable it again`;

/** Formats of the resource listings. */
const LISTING_FORMATS: readonly OutputFormat[] = ['table', 'wide', 'json', 'yaml'];
const OUTPUT_HELP = `  -o, --output FORMAT      table (default), wide (more columns), json or yaml; json and yaml
                           are a typed list (IPPoolList, ...) that apply -f takes back`;

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

/** `-o` of `ippool create|update`: the message, or the pool as stored. */
const SAVED_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml'];
const SAVED_OUTPUT_HELP = `  -o, --output FORMAT      table (default: a line saying it is done), or json or yaml: the
                           IPPool as stored`;
const saved = (out: { text: string; data: unknown }, format: OutputFormat): { text: string } =>
  format === 'table'
    ? { text: out.text }
    : { text: renderResources('IPPool', [out.data as ResourceObject], { format, single: true }) };
const NAME = { name: { type: 'string' } } as const satisfies OptionsConfig;

/** A resource kind's `list` and `delete` commands. */
interface KindCommands {
  /** The command word (`ippool`). */
  readonly word: string;
  /** Calico's kind (`IPPool`). */
  readonly kind: Exclude<ResourceKind, 'IPAMConfiguration'>;
  readonly listSummary: string;
  readonly deleteSummary: string;
  /** A name for the examples. */
  readonly sample: string;
  readonly client: (ipam: IpamClient) => ResourceClient<unknown>;
}

const POOLS: KindCommands = {
  word: 'ippool',
  kind: 'IPPool',
  listSummary: 'List IP pools.',
  deleteSummary: 'Delete an IP pool (its blocks lose their affinities).',
  sample: 'default-ipv4-ippool',
  client: (ipam) => ipam.pools,
};
const NODES: KindCommands = {
  word: 'node',
  kind: 'Node',
  listSummary: 'List nodes.',
  deleteSummary: 'Delete a node resource (its IPAM data is left to the GC).',
  sample: 'node-1',
  client: (ipam) => ipam.nodes,
};
const RESERVATIONS: KindCommands = {
  word: 'reservation',
  kind: 'IPReservation',
  listSummary: 'List IP reservations.',
  deleteSummary: 'Delete an IP reservation.',
  sample: 'gateways',
  client: (ipam) => ipam.reservations,
};

/** `<word> list [-o table|wide|json|yaml]` and `<word> delete NAME`. */
function listAndDelete(k: KindCommands): CommandSpec[] {
  return [
    {
      path: [k.word, 'list'],
      summary: k.listSummary,
      usage: `${k.word} list [-o table|wide|json|yaml]`,
      help: OUTPUT_HELP,
      example: `netledgerctl ${k.word} list -o yaml > ${k.word}s.yaml`,
      options: OUTPUT,
      store: 'read',
      async run(ctx, f) {
        const format = parseOutputFormat(str(f, 'output'), 'table', LISTING_FORMATS);
        const items = (await k.client((await ctx.store()).ipam).list()) as ResourceObject[];
        return { text: renderResources(k.kind, items, { format, single: false }) };
      },
    },
    {
      path: [k.word, 'delete'],
      summary: k.deleteSummary,
      usage: `${k.word} delete NAME`,
      help: `  --name N                 the ${k.kind} to delete (or NAME)`,
      example: `netledgerctl ${k.word} delete ${k.sample}`,
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

const MANIFEST_EXAMPLES: Record<ManifestAction, string> = {
  create: 'netledgerctl create -f pools.yaml',
  apply: 'netledgerctl get ippool -o yaml | netledgerctl apply -f -',
  replace: 'netledgerctl replace -f pool.yaml',
  delete: 'netledgerctl delete -f pool.yaml',
  get: 'netledgerctl get -f pools.yaml -o json',
};

const FILE_HELP = `  -f, --filename FILE      YAML or JSON: resources, typed lists (IPPoolList, ...) or a List;
                           - for stdin (at most 16 MiB)
  --skip-empty             a file of no resources is not an error`;

function manifestCommand(action: Exclude<ManifestAction, 'get'>): CommandSpec {
  return {
    path: [action],
    summary: `${action[0]!.toUpperCase()}${action.slice(1)} the IPPool, IPReservation, Node and IPAMConfiguration resources in a file.`,
    usage: `${action} -f FILE [--skip-empty]`,
    help: FILE_HELP,
    example: MANIFEST_EXAMPLES[action],
    options: { filename: { type: 'string', short: 'f' }, 'skip-empty': { type: 'boolean' } },
    store: action === 'create' || action === 'apply' ? 'write' : 'read',
    async run(ctx, f) {
      const file = str(f, 'filename');
      if (!file) throw new CtlError('Usage', `${action} needs -f FILE`);
      const text = await ctx.readInput(file, { maxBytes: MAX_MANIFEST_BYTES });
      const items = parseManifests(text, file === '-' ? 'stdin' : file, {
        allowEmpty: bool(f, 'skip-empty'),
      });
      return runManifests(await ctx.store(), { action, items });
    },
  };
}

/** `get KIND [NAME]...` (calicoctl's) and `get -f FILE`. */
const GET: CommandSpec = {
  path: ['get'],
  summary: 'Show resources by kind and name, or those a file names.',
  usage: 'get (KIND [NAME]... | -f FILE [--skip-empty]) [-o table|wide|json|yaml]',
  help: `  KIND                     ippool, ipreservation, node or ipamconfiguration (calicoctl's names
                           and plurals: pools, reservations, nodes, ipamconfig, ...)
  NAME                     the resources to show (default: every one of the kind)
${FILE_HELP}
${OUTPUT_HELP}
                           (default: table for KIND, yaml for -f)`,
  example: 'netledgerctl get ippool -o wide',
  options: {
    filename: { type: 'string', short: 'f' },
    'skip-empty': { type: 'boolean' },
    ...OUTPUT,
  },
  positionals: { min: 0, max: Number.POSITIVE_INFINITY },
  store: 'read',
  async run(ctx, f, args) {
    const file = str(f, 'filename');
    if (file !== undefined && args.length > 0) {
      throw new CtlError('Usage', 'get takes KIND [NAME]... or -f FILE, not both');
    }
    if (file === undefined) {
      if (args.length === 0) throw new CtlError('Usage', 'get needs KIND [NAME]... or -f FILE');
      const format = parseOutputFormat(str(f, 'output'), 'table', LISTING_FORMATS);
      const [kind, ...names] = args;
      return getResources(await ctx.store(), { kind: kind!, names, format });
    }
    const format = parseOutputFormat(str(f, 'output'), 'yaml', LISTING_FORMATS);
    const text = await ctx.readInput(file, { maxBytes: MAX_MANIFEST_BYTES });
    const items = parseManifests(text, file === '-' ? 'stdin' : file, {
      allowEmpty: bool(f, 'skip-empty'),
    });
    return runManifests(await ctx.store(), { action: 'get', items, format });
  },
};

/** `ippool`, `node`, `reservation` and the manifest verbs. */
export const RESOURCE_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['ippool', 'create'],
    summary: 'Create an IP pool.',
    usage:
      'ippool create --name N --cidr C [--block-size B] [--node-selector S] [--allowed-uses U,...] [--disabled]',
    help: `${POOL_HELP}
${SAVED_OUTPUT_HELP}`,
    example: 'netledgerctl ippool create --name pods --cidr 10.244.0.0/16 --block-size 26',
    options: { ...POOL_OPTIONS, ...OUTPUT },
    positionals: { min: 0, max: 1 },
    store: 'write',
    async run(ctx, f, args) {
      const format = parseOutputFormat(str(f, 'output'), 'table', SAVED_FORMATS);
      const name = nameOf(f, args, 'ippool create');
      const flags = poolFlags(f);
      return saved(await createPool((await ctx.store()).ipam, name, flags), format);
    },
  },
  {
    path: ['ippool', 'update'],
    summary: 'Change an IP pool (CIDR and block size are immutable).',
    usage: 'ippool update NAME [--node-selector S] [--allowed-uses U,...] [--disabled|--enabled]',
    help: `${POOL_HELP}
${SAVED_OUTPUT_HELP}`,
    example: 'netledgerctl ippool update pods --disabled',
    options: { ...POOL_OPTIONS, ...OUTPUT },
    positionals: { min: 0, max: 1 },
    store: 'read',
    async run(ctx, f, args) {
      const format = parseOutputFormat(str(f, 'output'), 'table', SAVED_FORMATS);
      const name = nameOf(f, args, 'ippool update');
      const flags = poolFlags(f);
      return saved(await updatePool((await ctx.store()).ipam, name, flags), format);
    },
  },
  {
    path: ['ippool', 'get'],
    summary: 'Show one IP pool.',
    usage: 'ippool get NAME [-o table|wide|json|yaml]',
    help: `  --name N                 the pool to show (or NAME)
  -o, --output FORMAT      yaml (default: the IPPool, which apply -f takes back), json, table
                           or wide`,
    example: 'netledgerctl ippool get pods -o yaml > pods.yaml',
    options: { ...OUTPUT, ...NAME },
    positionals: { min: 0, max: 1 },
    store: 'read',
    async run(ctx, f, args) {
      const format = parseOutputFormat(str(f, 'output'), 'yaml', LISTING_FORMATS);
      const pool = await (await ctx.store()).ipam.pools.get(nameOf(f, args, 'ippool get'));
      return { text: renderResources('IPPool', [pool], { format, single: true }) };
    },
  },
  ...listAndDelete(POOLS),
  {
    path: ['node', 'create'],
    summary: 'Create a node.',
    usage: 'node create NAME [--label K=V]...',
    help: `  --name N                 the node's name (or NAME): its hostname, as the CNI plugin sees it
  --label K=V              a label (pool node selectors match them), repeatable`,
    example: 'netledgerctl node create node-1 --label zone=a',
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
    help: `  --name N                 the reservation's name (or NAME)
  --cidrs C,...            the CIDRs or addresses IPAM must not hand out (comma-separated)`,
    example: 'netledgerctl reservation create gateways --cidrs 10.244.0.1/32,10.244.1.1/32',
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
  ...(['create', 'apply', 'replace', 'delete'] as const).map(manifestCommand),
  GET,
];
