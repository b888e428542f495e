import { IpamError } from '../errors.js';
import { DNS1123_SUBDOMAIN, MAX_DNS1123_SUBDOMAIN_BYTES } from '../limits/object-limits.js';

/** Kubernetes' DNS-1123 subdomain limit. */
export const MAX_RESOURCE_NAME_LENGTH = MAX_DNS1123_SUBDOMAIN_BYTES;

/** Why `name` is not a valid DNS-1123 subdomain, or `undefined` when it is. */
export function resourceNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'name must be specified';
  if (name.length > MAX_RESOURCE_NAME_LENGTH) {
    return `name is too long by ${name.length - MAX_RESOURCE_NAME_LENGTH} bytes`;
  }
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return "name must consist of lower case alphanumeric characters, '-' or '.', and start and end with an alphanumeric character";
  }
  return undefined;
}

/**
 * Checks a resource name the way Calico's validator does (a DNS-1123 subdomain: at most 253
 * characters of `[a-z0-9.-]`, each dot-separated part starting and ending alphanumeric).
 * Throws `IpamError('InvalidArgument')` naming the kind and the name.
 */
export function validateResourceName(kind: string, name: unknown): string {
  const problem = resourceNameProblem(name);
  if (problem !== undefined) {
    throw new IpamError(
      'InvalidArgument',
      `invalid ${kind} name ${JSON.stringify(name)}: ${problem}`,
      {
        identifier: typeof name === 'string' ? name : undefined,
      },
    );
  }
  return name as string;
}
