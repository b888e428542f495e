import { spawnSync } from 'node:child_process';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';

/** The oldest Go that builds the pinned module (its go.mod says `go 1.24.0`). */
const MIN_GO = { major: 1, minor: 24 } as const;

/** A usable Go toolchain. */
export interface GoToolchain {
  readonly path: string;
  /** As `go version` prints it, e.g. `go1.26.8`. */
  readonly version: string;
}

/** The Go version in `go version`'s output (`go version go1.26.8 linux/amd64`), if any. */
export function parseGoVersion(output: string): { text: string; major: number; minor: number } {
  const match = /\bgo(\d+)\.(\d+)(?:\.\d+|rc\d+)?\b/.exec(output);
  if (!match) return { text: output.trim(), major: 0, minor: 0 };
  return { text: match[0], major: Number(match[1]), minor: Number(match[2]) };
}

/** The message for a machine without a usable Go: what to install, or how to do without. */
function noGoMessage(detail: string): string {
  return (
    `kube-test-apiserver builds kube-apiserver from source and needs Go ${MIN_GO.major}.${MIN_GO.minor} ` +
    `or newer with access to the Go module proxy: ${detail}.\n` +
    `Install Go (the official release unpacked into /usr/local/go; Debian 12's golang-go is 1.19, ` +
    `too old) or set GO=/path/to/go, or set KUBE_APISERVER=/path/to/kube-apiserver (v1.32) to use ` +
    `a binary built elsewhere.`
  );
}

/**
 * Finds Go: `$GO`, else `go` on the PATH, else `/usr/local/go/bin/go`, and checks its version.
 * Throws NO_GO_TOOLCHAIN, with what to install, when none is usable.
 */
export function findGo(env: NodeJS.ProcessEnv): GoToolchain {
  const candidates = env.GO ? [env.GO] : ['go', '/usr/local/go/bin/go'];
  const tried: string[] = [];
  for (const path of candidates) {
    const probe = spawnSync(path, ['version'], {
      encoding: 'utf8',
      env: { ...env, GOTOOLCHAIN: 'local' },
    });
    if (probe.error || probe.status !== 0) {
      tried.push(`${path}: ${probe.error ? 'not found' : probe.stderr.trim()}`);
      continue;
    }
    const version = parseGoVersion(probe.stdout);
    const newEnough =
      version.major > MIN_GO.major ||
      (version.major === MIN_GO.major && version.minor >= MIN_GO.minor);
    if (!newEnough) {
      tried.push(`${path} is ${version.text}`);
      continue;
    }
    return { path, version: version.text };
  }
  throw new KubeTestApiserverError('NO_GO_TOOLCHAIN', noGoMessage(tried.join('; ')));
}
