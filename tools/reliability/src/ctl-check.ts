import { execFile } from 'node:child_process';
import { CTL } from './workspace.js';

/** What `netledgerctl ipam check` said. */
export interface CtlCheck {
  readonly problems: number;
  readonly output: string;
}

/**
 * Runs `netledgerctl ipam check --show-problem-ips` against the store `env` names and reads its
 * last line, `Check complete; found N problems.`; throws with the output when there is none.
 */
export async function ctlIpamCheck(env: Readonly<Record<string, string>>): Promise<CtlCheck> {
  const output = await new Promise<string>((resolve, reject) => {
    execFile(
      CTL,
      ['ipam', 'check', '--show-problem-ips'],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`netledgerctl ipam check: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
  const m = /Check complete; found (\d+) problems\./.exec(output);
  if (!m) throw new Error(`netledgerctl ipam check printed no verdict:\n${output}`);
  return { problems: Number(m[1]), output };
}
