import { isAbsolute, resolve } from 'node:path';
import { KubeTestClusterError } from './kube-test-cluster-error.js';

/** The IPAM `up` installs: netledger from the project's images and manifests, or host-local. */
export type CniChoice = 'netledger' | 'host-local';

const CNI_CHOICES: readonly CniChoice[] = ['netledger', 'host-local'];

/** What the command line asks for. */
export type Command =
  | { readonly kind: 'up'; readonly dir: string; readonly cni: CniChoice }
  | { readonly kind: 'down'; readonly dir: string }
  | { readonly kind: 'help' };

/** The usage text printed by `--help` and after a usage error. */
export const USAGE = `usage: kube-test-cluster up --dir DIR [--cni netledger|host-local]
       kube-test-cluster down --dir DIR

up    starts a one-node Kubernetes cluster on loopback with everything it makes under DIR
      (which must not exist, or be empty): kube-test-apiserver (etcd + kube-apiserver),
      containerd, kube-controller-manager, kube-scheduler and kubelet; installs the IPAM
      (default netledger); returns once the node is Ready, having written DIR/kubeconfig
      (an admin kubeconfig; its path is printed on stdout).
down  stops everything up started, removes the pods and what they mounted, and removes DIR.
      Nothing to do when DIR does not exist; refuses a DIR that up did not make.

Run as root. Exit status: 0 done, 1 could not start or tear down (the message says why),
2 bad usage.`;

const usage = (message: string): KubeTestClusterError =>
  new KubeTestClusterError('USAGE', `${message}\n\n${USAGE}`);

const isCni = (s: string): s is CniChoice => (CNI_CHOICES as readonly string[]).includes(s);

/**
 * Parses the command line (without node and the script) into a {@link Command}, with DIR made
 * absolute against `cwd`; throws a USAGE error on bad input.
 */
export function parseArgs(argv: readonly string[], cwd: string): Command {
  const [verb, ...rest] = argv;
  if (verb === '--help' || verb === 'help' || rest.includes('--help')) return { kind: 'help' };
  if (verb !== 'up' && verb !== 'down') {
    throw usage(verb === undefined ? 'a command is required' : `unknown command: ${verb}`);
  }
  const values = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const allowed = verb === 'up' ? ['--dir', '--cni'] : ['--dir'];
    if (!allowed.includes(name)) throw usage(`${verb}: unknown argument: ${arg}`);
    const value = eq > 0 ? arg.slice(eq + 1) : rest[++i];
    if (value === undefined || value === '') throw usage(`${name} needs a value`);
    values.set(name, value);
  }
  const dirArg = values.get('--dir');
  if (dirArg === undefined) throw usage(`${verb}: --dir is required`);
  const dir = isAbsolute(dirArg) ? resolve(dirArg) : resolve(cwd, dirArg);
  if (dir === '/') throw usage('--dir /: refusing the root directory');
  if (verb === 'down') return { kind: 'down', dir };
  const cni = values.get('--cni') ?? 'netledger';
  if (!isCni(cni)) throw usage(`--cni ${cni}: expected one of ${CNI_CHOICES.join(', ')}`);
  return { kind: 'up', dir, cni };
}
