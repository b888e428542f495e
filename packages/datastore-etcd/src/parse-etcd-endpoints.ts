import { IpamError } from '@netledger/ipam-core';

/**
 * Parses Calico's `etcd_endpoints` / `ETCD_ENDPOINTS` text: comma-separated URLs such as
 * `http://10.0.0.1:2379,https://etcd.example:2379`. Whitespace and empty entries are ignored.
 * Throws `InvalidArgument` naming the bad entry when one is not an `http(s)://host:port` URL, when
 * secure and insecure URLs are mixed, or when there is no endpoint at all.
 */
export function parseEtcdEndpoints(text: string): string[] {
  const endpoints = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (endpoints.length === 0) {
    throw new IpamError('InvalidArgument', 'etcd endpoints: none given');
  }
  for (const endpoint of endpoints) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new IpamError(
        'InvalidArgument',
        `etcd endpoint ${JSON.stringify(endpoint)} is not an http(s)://host:port URL`,
        {
          identifier: endpoint,
        },
      );
    }
    const bare = url.pathname === '/' || url.pathname === '';
    if (
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      !url.hostname ||
      !bare ||
      url.search
    ) {
      throw new IpamError(
        'InvalidArgument',
        `etcd endpoint ${JSON.stringify(endpoint)} is not an http(s)://host:port URL`,
        { identifier: endpoint },
      );
    }
  }
  const secure = endpoints.filter((e) => e.startsWith('https:')).length;
  if (secure !== 0 && secure !== endpoints.length) {
    throw new IpamError('InvalidArgument', 'etcd endpoints mix http:// and https:// URLs');
  }
  return endpoints.map((e) => e.replace(/\/$/, ''));
}
