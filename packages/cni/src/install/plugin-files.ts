import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The static client's name: the plugin `type` runtimes execute from their CNI bin directory. */
export const CLIENT_NAME = 'netledger-ipam';
/** Beside the client: the Node.js fallback's directory (apps/cni-plugin/client/fallback.go). */
export const FALLBACK_DIR = 'netledger-ipam.d';
/** In the fallback's directory: the link to the Node.js binary that runs its bundle. */
export const NODE_LINK = 'node';
/** Set by the static client for the fallback it runs: the client's own path. */
export const CLIENT_ENV = 'NETLEDGER_CLIENT';
/** Set by the static client for the fallback it runs: why the agent did not serve the request. */
export const FALLBACK_REASON_ENV = 'NETLEDGER_FALLBACK_REASON';
/**
 * What the fallback adds to an exit status it chose itself when the client started it: the client
 * then knows any other status is Node's own (it could not start, or died before answering).
 */
export const ANSWERED_STATUS_OFFSET = 100;

/** Go's names for the architectures the client is built for (apps/cni-plugin/build.mjs). */
const GOARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

/**
 * The static client beside the fallback's bundle in `bundleDir`: the installed one
 * (`<dir>/netledger-ipam` for `<dir>/netledger-ipam.d/`), else the build's for this machine
 * (`dist/client/linux-<arch>/netledger-ipam` for `dist/netledger-ipam.d/`); undefined when
 * neither is there.
 */
export function staticClientBeside(
  bundleDir: string,
  arch: string = process.arch,
): string | undefined {
  const installed = join(dirname(bundleDir), CLIENT_NAME);
  if (existsSync(installed)) return installed;
  const goarch = GOARCH[arch];
  const built =
    goarch === undefined
      ? undefined
      : join(dirname(bundleDir), 'client', `linux-${goarch}`, CLIENT_NAME);
  return built !== undefined && existsSync(built) ? built : undefined;
}
