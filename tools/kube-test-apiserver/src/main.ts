// kube-test-apiserver: build (once) and run the real kube-apiserver with etcd for tests.
// Prints the API server's URL on stdout when /readyz is ok; serves until SIGTERM or SIGINT.
import { homedir } from 'node:os';
import { resolveKubeApiserver } from './kube-binaries.js';
import { KubeTestApiserverError } from './kube-test-apiserver-error.js';
import { parseArgs, USAGE } from './parse-args.js';
import type { Command } from './parse-args.js';
import { startTestApiserver } from './start-test-apiserver.js';

const log = (line: string): void => {
  process.stderr.write(`kube-test-apiserver: ${line}\n`);
};

/** Resolves on the first SIGTERM/SIGINT, or on stdin's end when asked to watch it. */
function stopRequested(watchStdin: boolean): { promise: Promise<string>; dispose: () => void } {
  let dispose = (): void => {};
  const promise = new Promise<string>((resolve) => {
    const onTerm = (): void => resolve('SIGTERM');
    const onInt = (): void => resolve('SIGINT');
    const onEnd = (): void => resolve('standard input closed');
    process.once('SIGTERM', onTerm);
    process.once('SIGINT', onInt);
    if (watchStdin) {
      process.stdin.on('end', onEnd);
      process.stdin.on('close', onEnd);
      process.stdin.resume();
    }
    dispose = () => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      if (watchStdin) process.stdin.destroy();
    };
  });
  return { promise, dispose: () => dispose() };
}

async function serve(command: Extract<Command, { kind: 'serve' }>): Promise<number> {
  // Listen for signals before the long start, so a SIGTERM during it still cleans up: it aborts
  // the build or the start, which stop what they started.
  const stop = stopRequested(command.exitOnStdinClose);
  const abort = new AbortController();
  void stop.promise.then((reason) => abort.abort(reason));
  try {
    let server;
    let binary;
    try {
      binary = await resolveKubeApiserver({
        env: process.env,
        home: homedir(),
        build: !command.noBuild,
        log,
        signal: abort.signal,
      });
      server = await startTestApiserver({
        listen: command.listen,
        kubeconfigOut: command.kubeconfigOut,
        tokensOut: command.tokensOut,
        apiserverBin: binary.path,
        etcdBin: process.env.ETCD_BIN || '/usr/bin/etcd',
        startTimeoutMs: command.startTimeoutMs,
        env: process.env,
        log,
        signal: abort.signal,
        nodes: command.node === undefined ? [] : [command.node],
        withControllerManager: command.withControllerManager,
      });
    } catch (e) {
      if (!abort.signal.aborted) throw e;
      log(`${String(abort.signal.reason)} during start-up: stopped`);
      return 0;
    }
    log(
      `ready in ${(server.startMs / 1000).toFixed(1)} s (${binary.path}); ` +
        `kubeconfig ${server.kubeconfigPath}, tokens ${server.tokensPath}`,
    );
    process.stdout.write(`${server.url}\n`);
    const reason = await Promise.race([stop.promise, server.died.then((m) => `died: ${m}`)]);
    log(reason.startsWith('died: ') ? reason : `${reason}: stopping`);
    await server.stop();
    return reason.startsWith('died: ') ? 1 : 0;
  } finally {
    stop.dispose();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  let command: Command;
  try {
    command = parseArgs(argv);
  } catch (e) {
    log(e instanceof Error ? e.message : String(e));
    return 2;
  }
  switch (command.kind) {
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case 'build': {
      const binary = await resolveKubeApiserver({ env: process.env, home: homedir(), log });
      process.stdout.write(`${binary.path}\n`);
      return 0;
    }
    case 'serve':
      return serve(command);
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  log(e instanceof KubeTestApiserverError ? e.message : String((e as Error)?.stack ?? e));
  process.exitCode = e instanceof KubeTestApiserverError && e.code === 'USAGE' ? 2 : 1;
}
