import { spawn } from 'node:child_process';

/** How a command ended: its status (127 when it could not be run) and its output. */
export interface CommandResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `bin` with an argument array (never a shell), `input` on its stdin, and resolves with its
 * status and output; never rejects. Killed after `timeoutMs` (status 124).
 */
export async function runCommand(
  bin: string,
  args: readonly string[],
  options: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.env && { env: options.env }),
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 120_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ status: 127, stdout, stderr: `${bin}: ${e.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ status: timedOut ? 124 : (code ?? 1), stdout, stderr });
    });
    child.stdin.on('error', () => {}); // a command that exits without reading its input
    child.stdin.end(options.input ?? '');
  });
}

/** `bin args…` as a reader would type it, for messages. */
export const commandLine = (bin: string, args: readonly string[]): string =>
  [bin, ...args].join(' ');
