import { parseArgs } from 'node:util';
import { CtlError } from '../ctl-error.js';
import type { CommandSpec, FlagValues, OptionsConfig } from './command-spec.js';

const GLOBAL_OPTIONS: OptionsConfig = {
  config: { type: 'string', short: 'c' },
  'allow-version-mismatch': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

/**
 * Parses a command's arguments strictly against its flags and the global ones: an unknown flag,
 * a missing value, or too few or too many positionals throw `Usage` naming it. With `--help`,
 * the positionals are not checked.
 */
export function parseCommandArgs(
  spec: CommandSpec,
  rest: readonly string[],
): { flags: FlagValues; args: string[] } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: { ...GLOBAL_OPTIONS, ...spec.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new CtlError(
      'Usage',
      `${(e as Error).message.split('\n')[0]!.replace(/^(Unknown option '[^']*')\..*$/, '$1')} (see 'netledgerctl ${spec.path.join(' ')} --help')`,
    );
  }
  const flags = parsed.values;
  const args = parsed.positionals;
  if (flags.help === true) return { flags, args };
  const { min, max } = spec.positionals ?? { min: 0, max: 0 };
  if (args.length < min || args.length > max) {
    throw new CtlError(
      'Usage',
      args.length > max
        ? `unexpected argument ${JSON.stringify(args[max])} (usage: netledgerctl ${spec.usage.split('\n')[0]})`
        : `missing argument (usage: netledgerctl ${spec.usage.split('\n')[0]})`,
    );
  }
  return { flags, args };
}
