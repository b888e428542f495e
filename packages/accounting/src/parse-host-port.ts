/** A TCP listen address: a host (an IP or a name; `0.0.0.0` for every address) and a port. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `HOST:PORT` as a process's listen flag takes it (`127.0.0.1:9094`, `[::1]:9094` for an
 * IPv6 host, `:9094` for every address); undefined when it is not that form or the port is not
 * 0-65535.
 */
export function parseHostPort(text: string): HostPort | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || !Number.isInteger(port) || port > 65535) return undefined;
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}
