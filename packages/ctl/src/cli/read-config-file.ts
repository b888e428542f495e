import type { ConfigFile } from '../config/datastore-config.js';
import { CtlError } from '../ctl-error.js';
import type { CommandContext, CtlIo } from './command-spec.js';

/**
 * The config file to select the datastore with: the `-c` file (`explicit`, read through
 * `readInput`), else the first of `io.defaultConfigFiles` that exists, else undefined. A default
 * file that exists but cannot be read is `InvalidInput` naming it.
 */
export async function readConfigFile(
  io: CtlIo,
  o: { configPath: string | undefined; readInput: CommandContext['readInput'] },
): Promise<ConfigFile | undefined> {
  if (o.configPath !== undefined) {
    return { text: await o.readInput(o.configPath), path: o.configPath, explicit: true };
  }
  for (const path of io.defaultConfigFiles) {
    try {
      return { text: await io.readFile(path), path, explicit: false };
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      throw new CtlError('InvalidInput', `cannot read ${path}: ${code ?? (e as Error).message}`);
    }
  }
  return undefined;
}
