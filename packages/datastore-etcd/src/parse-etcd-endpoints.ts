import { IpamError } from '@netledger/ipam-core';

/** Options of {@link parseEtcdEndpoints}. */
export interface ParseEtcdEndpointsOptions {
  /**
   * Whether TLS material (a CA, or a client certificate and key) is configured. With it, an
   * endpoint written without a scheme (`10.0.0.1:2379`) is `https://`, without it `http://`, as
   * etcd's clientv3 and etcdctl decide. Left out, such endpoints come back as written, and the
   * datastore factory, which knows whether TLS is configured, gives them their scheme.
   */
  readonly tls?: boolean;
}

const URL_FORM = 'an http(s)://host:port URL';
const BARE_FORM = 'host:port, [IPv6]:port or http(s)://host:port';

const invalid = (endpoint: string, why: string): IpamError =>
  new IpamError('InvalidArgument', `etcd endpoint ${JSON.stringify(endpoint)} ${why}`, {
    identifier: endpoint,
  });

// A URL is valid here when it names only a scheme, a host and a port: nothing that etcd's client
// would silently drop (a path, a query, credentials).
const bareUrl = (url: URL): boolean =>
  url.hostname !== '' &&
  (url.pathname === '/' || url.pathname === '') &&
  url.search === '' &&
  url.hash === '' &&
  url.username === '' &&
  url.password === '';

function checkUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalid(endpoint, `is not ${URL_FORM}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !bareUrl(url)) {
    throw invalid(endpoint, `is not ${URL_FORM}`);
  }
  return endpoint.replace(/\/$/, '');
}

// `host:port` or `[v6]:port`, the forms clientv3 and etcdctl take without a scheme. The host is
// checked by the URL parser (an IPv6 literal must be valid, a name must be a valid host name).
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^\s[\]:/@?#]+):(\d{1,5})$/;

function checkHostPort(endpoint: string): string {
  const m = HOST_PORT.exec(endpoint);
  if (!m) {
    if (/^[0-9A-Fa-f]*:[0-9A-Fa-f]*:/.test(endpoint) && !endpoint.startsWith('[')) {
      throw invalid(endpoint, `is not ${BARE_FORM}: put an IPv6 address in brackets, [::1]:2379`);
    }
    if (!endpoint.includes(':') && !/[\s/@?#]/.test(endpoint)) {
      throw invalid(endpoint, `has no port (${BARE_FORM})`);
    }
    throw invalid(endpoint, `is not ${BARE_FORM}`);
  }
  const port = Number(m[2]);
  if (port < 1 || port > 65535) throw invalid(endpoint, `has port ${m[2]}, not 1-65535`);
  let url: URL;
  try {
    url = new URL(`http://${endpoint}`);
  } catch {
    throw invalid(endpoint, `is not ${BARE_FORM}`);
  }
  if (!bareUrl(url)) throw invalid(endpoint, `is not ${BARE_FORM}`);
  return endpoint;
}

/**
 * Parses Calico's `etcd_endpoints` / `ETCD_ENDPOINTS` text: comma-separated endpoints, each an
 * `http(s)://host:port` URL or, as clientv3 and etcdctl accept, `host:port` or `[IPv6]:port`
 * without a scheme (see {@link ParseEtcdEndpointsOptions.tls} for the scheme those get).
 * Whitespace and empty entries are ignored. Throws `InvalidArgument` naming the bad entry and what
 * is wrong with it (not a URL, a scheme other than http(s), a path, no port, an IPv6 address
 * without brackets), when secure and insecure endpoints are mixed, or when there is none at all.
 */
export function parseEtcdEndpoints(
  text: string,
  options: ParseEtcdEndpointsOptions = {},
): string[] {
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (entries.length === 0) {
    throw new IpamError('InvalidArgument', 'etcd endpoints: none given');
  }
  const endpoints = entries.map((entry) => {
    if (entry.includes('://')) return checkUrl(entry);
    const hostPort = checkHostPort(entry);
    if (options.tls === undefined) return hostPort;
    return `${options.tls ? 'https' : 'http'}://${hostPort}`;
  });
  const schemes = new Set(
    endpoints.filter((e) => e.includes('://')).map((e) => e.slice(0, e.indexOf(':'))),
  );
  if (schemes.size > 1) {
    throw new IpamError(
      'InvalidArgument',
      `etcd endpoints mix http:// and https:// endpoints (${endpoints.join(',')})${
        entries.some((e) => !e.includes('://'))
          ? `; an endpoint without a scheme is ${options.tls ? 'https' : 'http'} ${options.tls ? 'with' : 'without'} TLS material`
          : ''
      }`,
    );
  }
  return endpoints;
}
