// netledger-device's client verbs: a command line to one request to the daemon, and what it prints.
import type { CommandLine } from './command-line.js';
import { DEFAULT_SOCKET, UsageError } from './command-line.js';
import { createDeviceClient } from './device-client.js';

/** The verbs that talk to a running daemon (the ones the start-up snapshot serves). */
export const CLIENT_VERBS: ReadonlySet<string> = new Set([
  'apply',
  'start',
  'stop',
  'teardown',
  'leases',
  'pools',
  'health',
  'metrics',
]);

/**
 * Runs a client verb against the daemon on `--socket` and prints its answer: `start` prints the
 * LXC config (`--output json`: the whole report), `metrics` the exposition text, the others JSON.
 * Returns the exit code; throws `DeviceError` (from the daemon) or `UsageError`. `out` prints
 * (the executable passes its `printValue`; the snapshot's warm-up one that prints nothing).
 */
export async function runClientVerb(
  cli: CommandLine,
  out: (value: unknown) => void,
): Promise<number> {
  const c = createDeviceClient({ socketPath: cli.values.socket ?? DEFAULT_SOCKET });
  const name = (): string => {
    if (cli.target === undefined || cli.extra.length > 0)
      throw new UsageError(`${cli.verb} takes exactly one container name`);
    return cli.target;
  };
  switch (cli.verb) {
    case 'apply':
      out(await c.apply(cli.values.state, { force: cli.values.force === true }));
      return 0;
    case 'start': {
      const r = await c.start(name());
      out(cli.json ? r : r.lxc);
      return 0;
    }
    case 'stop':
      out(await c.stop(name()));
      return 0;
    case 'teardown':
      out(await c.teardown(name()));
      return 0;
    case 'leases':
      out(await c.leases());
      return 0;
    case 'pools':
      out(await c.pools());
      return 0;
    case 'health':
      out(await c.health());
      return 0;
    case 'metrics': {
      const text = await c.metrics();
      out(cli.json ? { metrics: text } : text);
      return 0;
    }
    default:
      throw new UsageError(`unknown verb ${cli.verb}`);
  }
}
