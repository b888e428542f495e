import { cidrsOverlap, formatCidr, parseCidr } from '@netledger/accounting';
import type { Cidr } from '@netledger/accounting';
import { IpamError } from '../errors.js';
import type { IPPool } from '../model/resources.js';
import { resourceNameProblem } from '../model/resource-name.js';
import { parseSelector } from '../selector/selector.js';
import { tryParsePoolCidr } from './pool-cidr.js';
import { withPoolDefaults } from './pool-defaults.js';

const LINK_LOCAL = {
  4: { cidr: parseCidr('169.254.0.0/16'), text: 'IPv4 Link Local range 169.254.0.0/16' },
  6: { cidr: parseCidr('fe80::/10'), text: 'IPv6 Link Local range fe80::/10' },
} as const;

const BLOCK_SIZE_RANGE = { 4: [20, 32], 6: [116, 128] } as const;
const ALLOWED_USES: ReadonlySet<unknown> = new Set(['Workload', 'Tunnel', 'LoadBalancer']);
const ASSIGNMENT_MODES: ReadonlySet<unknown> = new Set(['Automatic', 'Manual']);

function fail(pool: IPPool, reasons: readonly string[]): never {
  const name = typeof pool.metadata?.name === 'string' ? pool.metadata.name : '';
  throw new IpamError(
    'InvalidArgument',
    `invalid IPPool ${JSON.stringify(name)}: ${reasons.join('; ')}`,
    {
      identifier: name,
    },
  );
}

function selectorProblems(field: string, text: unknown): string[] {
  if (text === undefined || text === '') return [];
  if (typeof text !== 'string') return [`${field} must be a string`];
  if (text.includes('global(')) return [`global() selector is not valid for IPPool ${field}`];
  try {
    parseSelector(text);
    return [];
  } catch (e) {
    return [e instanceof Error ? e.message : String(e)];
  }
}

function cidrProblems(text: unknown): { cidr?: Cidr; problems: string[] } {
  if (text === undefined || text === '') return { problems: ['IPPool CIDR must be specified'] };
  const cidr = tryParsePoolCidr(text);
  if (!cidr) return { problems: [`IPPool CIDR must be a valid subnet (${JSON.stringify(text)})`] };
  const problems: string[] = [];
  const strict = tryStrict(text as string);
  if (!strict) {
    problems.push(
      `IPPool CIDR ${text as string} is not strictly masked (the network is ${formatCidr(cidr)})`,
    );
  }
  const linkLocal = LINK_LOCAL[cidr.version];
  if (cidrsOverlap(cidr, linkLocal.cidr)) {
    problems.push(`IPPool CIDR overlaps with ${linkLocal.text}`);
  }
  return { cidr, problems };
}

function tryStrict(text: string): boolean {
  try {
    parseCidr(text);
    return true;
  } catch {
    return false;
  }
}

function usesProblems(pool: IPPool): string[] {
  const { allowedUses = [], nodeSelector, namespaceSelector } = pool.spec;
  const problems: string[] = [];
  for (const use of allowedUses) {
    if (!ALLOWED_USES.has(use)) problems.push(`unknown allowed use ${JSON.stringify(use)}`);
  }
  const lb = allowedUses.includes('LoadBalancer');
  if (lb && allowedUses.some((u) => u === 'Workload' || u === 'Tunnel')) {
    problems.push('LoadBalancer cannot be combined with Workload or Tunnel allowed uses');
  }
  if (lb && nodeSelector !== 'all()') {
    problems.push('IP Pool with AllowedUse LoadBalancer must have nodeSelector set to all()');
  }
  if (allowedUses.includes('Tunnel') && namespaceSelector) {
    problems.push('IP Pool with AllowedUse Tunnel cannot have namespaceSelector');
  }
  const encap = (mode: unknown): boolean =>
    typeof mode === 'string' && mode !== '' && mode !== 'Never';
  const { ipipMode, vxlanMode, disableBGPExport } = pool.spec;
  if (encap(ipipMode) && encap(vxlanMode))
    problems.push('ipipMode and vxlanMode cannot both be enabled');
  if (lb && (encap(ipipMode) || encap(vxlanMode))) {
    problems.push('LoadBalancer IP pool cannot have IPIP or VXLAN enabled');
  }
  if (lb && disableBGPExport === true)
    problems.push('LoadBalancer IP pools cannot disable BGP export');
  return problems;
}

/**
 * Validates an IPPool as Calico's client and CRD do, and returns it with defaults applied and its
 * CIDR in canonical form. Checks: a DNS-1123 name; a parsable, strictly masked CIDR clear of the
 * link-local ranges; block size 20-32 (IPv4) or 116-128 (IPv6); an enabled pool at least one block
 * large; parsable selectors without `global()`; known allowed uses, `LoadBalancer` alone and with
 * nodeSelector `all()`, no namespaceSelector on a `Tunnel` pool; a known assignment mode. Throws
 * `InvalidArgument` listing every problem found. Then, unlike Calico (which refuses overlap with
 * any pool), only an overlap with an existing *enabled* pool of another name is refused, with
 * `ConfigConflict` naming both, so a pool can be staged, disabled, over one being replaced.
 */
export function validatePool(pool: IPPool, existing: readonly IPPool[]): IPPool {
  const problems: string[] = [];
  const nameProblem = resourceNameProblem(pool.metadata?.name);
  if (nameProblem) problems.push(nameProblem);
  const { cidr, problems: cidrIssues } = cidrProblems(pool.spec?.cidr);
  problems.push(...cidrIssues);
  if (!cidr) fail(pool, problems);

  const defaulted = withPoolDefaults(pool);
  const spec = defaulted.spec;
  const blockSize = spec.blockSize!;
  const [min, max] = BLOCK_SIZE_RANGE[cidr.version];
  if (!Number.isInteger(blockSize) || blockSize < min || blockSize > max) {
    problems.push(
      `IPv${cidr.version} block size must be between ${min} and ${max} (got ${blockSize})`,
    );
  } else if (spec.disabled !== true && cidr.prefix > blockSize) {
    problems.push(
      'IP pool size is too small for use with Calico IPAM. It must be equal to or greater than the block size.',
    );
  }
  problems.push(...selectorProblems('nodeSelector', spec.nodeSelector));
  problems.push(...selectorProblems('namespaceSelector', spec.namespaceSelector));
  problems.push(...usesProblems(defaulted));
  if (!ASSIGNMENT_MODES.has(spec.assignmentMode)) {
    problems.push(
      `assignmentMode must be Automatic or Manual (got ${JSON.stringify(spec.assignmentMode)})`,
    );
  }
  if (spec.disabled !== undefined && typeof spec.disabled !== 'boolean') {
    problems.push('disabled must be a boolean');
  }
  if (problems.length > 0) fail(pool, problems);

  for (const other of existing) {
    if (other.metadata.name === pool.metadata.name || other.spec.disabled === true) continue;
    const otherCidr = tryParsePoolCidr(other.spec.cidr);
    if (otherCidr && cidrsOverlap(cidr, otherCidr)) {
      throw new IpamError(
        'ConfigConflict',
        `IPPool(${pool.metadata.name}) CIDR ${formatCidr(cidr)} overlaps with IPPool(${other.metadata.name}) CIDR ${other.spec.cidr}`,
        { identifier: pool.metadata.name },
      );
    }
  }
  return { ...defaulted, spec: { ...spec, cidr: formatCidr(cidr) } };
}

/**
 * Refuses an update that changes what cannot change: the CIDR (a canonical rewrite of the same
 * network is allowed), the block size (compared after defaults), or allowed uses moving away from
 * `LoadBalancer`. Throws `InvalidArgument`; returns nothing.
 */
export function validatePoolUpdate(old: IPPool, next: IPPool): void {
  const problems: string[] = [];
  const oldCidr = tryParsePoolCidr(old.spec.cidr);
  const nextCidr = tryParsePoolCidr(next.spec.cidr);
  const sameCidr =
    old.spec.cidr === next.spec.cidr ||
    (oldCidr !== undefined &&
      nextCidr !== undefined &&
      formatCidr(oldCidr) === formatCidr(nextCidr) &&
      next.spec.cidr === formatCidr(nextCidr));
  if (!sameCidr) problems.push('IPPool CIDR cannot be modified');
  else if (withPoolDefaults(old).spec.blockSize !== withPoolDefaults(next).spec.blockSize) {
    problems.push('IPPool BlockSize cannot be modified');
  }
  const wasLb = (old.spec.allowedUses ?? []).includes('LoadBalancer');
  if (wasLb && withPoolDefaults(next).spec.allowedUses!.some((u) => u !== 'LoadBalancer')) {
    problems.push('IPPool allowed use cannot be changed from LoadBalancer to Workload or Tunnel');
  }
  if (problems.length > 0) fail(next, problems);
}
