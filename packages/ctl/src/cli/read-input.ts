import { CtlError } from '../ctl-error.js';
import type { CommandContext, CtlIo } from './command-spec.js';
import type { BoundedReadOptions } from './read-bounded.js';

const MIB = 1024 * 1024;

/**
 * The context's `readInput` over `io`: a file, or stdin for `-`. `InvalidInput` naming the file
 * (or stdin) when it cannot be read, or holds more than `maxBytes` (also for a reader that does
 * not stop at the bound: nothing larger is returned).
 */
export function createReadInput(io: CtlIo): CommandContext['readInput'] {
  return async (path: string, options: BoundedReadOptions = {}): Promise<string> => {
    const { maxBytes } = options;
    const tooLarge = (): CtlError =>
      new CtlError(
        'InvalidInput',
        `${path === '-' ? 'stdin' : path} is larger than ${maxBytes} bytes (${maxBytes! / MIB} MiB), the limit for this input: refusing to parse it`,
      );
    let text: string;
    try {
      text = path === '-' ? await io.readStdin(options) : await io.readFile(path, options);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EFBIG' && maxBytes !== undefined) throw tooLarge();
      throw new CtlError('InvalidInput', `cannot read ${path}: ${code ?? (e as Error).message}`);
    }
    if (maxBytes !== undefined && Buffer.byteLength(text) > maxBytes) throw tooLarge();
    return text;
  };
}
