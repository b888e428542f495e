import { isIP } from 'node:net';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';

/** Where the API server listens: a loopback IP literal and a port (0: any free port). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** What the command line asks for. */
export type Command =
  | {
      readonly kind: 'serve';
      readonly listen: ListenAddress;
      readonly kubeconfigOut: string;
      readonly tokensOut: string;
      /** Fail instead of building kube-apiserver when it is not built yet. */
      readonly noBuild: boolean;
      /** Stop as if sent SIGTERM when standard input reaches its end (the parent died). */
      readonly exitOnStdinClose: boolean;
      readonly startTimeoutMs: number;
      /** A node whose kubelet gets an identity (`system:node:<name>`), if any. */
      readonly node: string | undefined;
      /** A kube-controller-manager will run beside it: ServiceAccount admission stays on. */
      readonly withControllerManager: boolean;
    }
  | { readonly kind: 'build' }
  | { readonly kind: 'help' };

/** The usage text printed by `--help` and after a usage error. */
export const USAGE = `usage: kube-test-apiserver --listen 127.0.0.1:PORT --kubeconfig-out FILE [options]
       kube-test-apiserver --build

Starts etcd and the real kube-apiserver on loopback, writes an admin kubeconfig to FILE (with one
context per app) and the tokens to FILE.tokens.json, prints the API server's URL on stdout once
/readyz is ok, and serves until SIGTERM or SIGINT, then stops both and removes its temp dir.

  --listen HOST:PORT       a loopback address (127.0.0.0/8 or [::1]); port 0 picks a free one
  --kubeconfig-out FILE    where to write the kubeconfig
  --tokens-out FILE        where to write the tokens (default: FILE.tokens.json beside it)
  --no-build               fail at once when kube-apiserver is not built yet, instead of building it
  --exit-on-stdin-close    stop when standard input closes (a parent that dies takes it down)
  --start-timeout SECONDS  how long to wait for etcd and /readyz (default 60)
  --node NAME              add a kubelet identity for node NAME: user system:node:NAME in group
                           system:nodes (the Node authorizer), context system:node:NAME
  --with-controller-manager  a kube-controller-manager will run beside it: keep the ServiceAccount
                           admission plugin on (it waits for the controllers' default ServiceAccount)
  --build                  build kube-apiserver if it is not cached, print its path, and exit
  --help                   this text

Environment: KUBE_APISERVER=/path/to/kube-apiserver uses that binary instead of building one;
ETCD_BIN=/path/to/etcd (default /usr/bin/etcd); GO=/path/to/go picks the Go toolchain.`;

const usage = (message: string): KubeTestApiserverError =>
  new KubeTestApiserverError('USAGE', `${message}\n\n${USAGE}`);

/** Whether `host` is an IP literal on loopback: the tool never listens anywhere else. */
export function isLoopback(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  // The URL parser writes an IPv6 literal in its canonical form, so 0:0::1 becomes [::1].
  return isIP(host) === 6 && new URL(`http://[${host}]/`).hostname === '[::1]';
}

/** Parses `HOST:PORT` or `[V6]:PORT`; throws a USAGE error for anything else. */
export function parseListen(text: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined || port > 65535) {
    throw usage(`--listen ${text}: expected HOST:PORT, e.g. 127.0.0.1:6443 or [::1]:6443`);
  }
  if (!isLoopback(host)) {
    throw usage(`--listen ${text}: ${host} is not a loopback IP (127.0.0.0/8 or ::1)`);
  }
  return { host, port };
}

const VALUE_FLAGS = [
  '--listen',
  '--kubeconfig-out',
  '--tokens-out',
  '--start-timeout',
  '--node',
] as const;
const SWITCHES = [
  '--no-build',
  '--exit-on-stdin-close',
  '--build',
  '--help',
  '--with-controller-manager',
] as const;
type ValueFlag = (typeof VALUE_FLAGS)[number];
type Switch = (typeof SWITCHES)[number];

const isValueFlag = (s: string): s is ValueFlag => (VALUE_FLAGS as readonly string[]).includes(s);
const isSwitch = (s: string): s is Switch => (SWITCHES as readonly string[]).includes(s);

/** A Kubernetes node name: a DNS-1123 subdomain (lower-case labels joined by dots). */
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Parses the command line (without node and the script); throws a USAGE error on bad input. */
export function parseArgs(argv: readonly string[]): Command {
  const values = new Map<ValueFlag, string>();
  const switches = new Set<Switch>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (isSwitch(name) && eq < 0) {
      switches.add(name);
    } else if (isValueFlag(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined || value === '') throw usage(`${name} needs a value`);
      values.set(name, value);
    } else {
      throw usage(`unknown argument: ${arg}`);
    }
  }
  if (switches.has('--help')) return { kind: 'help' };
  if (switches.has('--build')) {
    if (values.size > 0 || switches.size > 1) throw usage('--build takes no other option');
    return { kind: 'build' };
  }
  const listen = values.get('--listen');
  const kubeconfigOut = values.get('--kubeconfig-out');
  if (listen === undefined) throw usage('--listen is required');
  if (kubeconfigOut === undefined) throw usage('--kubeconfig-out is required');
  const timeout = values.get('--start-timeout') ?? '60';
  const seconds = Number(timeout);
  if (!/^\d+(\.\d+)?$/.test(timeout) || seconds <= 0) {
    throw usage(`--start-timeout ${timeout}: expected a positive number of seconds`);
  }
  const node = values.get('--node');
  if (node !== undefined && (node.length > 253 || !NODE_NAME.test(node))) {
    throw usage(`--node ${node}: not a node name (lower-case letters, digits, '-' and '.')`);
  }
  return {
    kind: 'serve',
    listen: parseListen(listen),
    kubeconfigOut,
    tokensOut: values.get('--tokens-out') ?? `${kubeconfigOut}.tokens.json`,
    noBuild: switches.has('--no-build'),
    exitOnStdinClose: switches.has('--exit-on-stdin-close'),
    startTimeoutMs: seconds * 1000,
    node,
    withControllerManager: switches.has('--with-controller-manager'),
  };
}
