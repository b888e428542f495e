// stopSignal in a process of its own, with real signals: what it resolves with, and that the
// process ends in its own time rather than on the signal.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let bundle: { path: string; remove: () => Promise<void> };
let daemon: string;

beforeAll(async () => {
  // A daemon (an interval stands for its server) that says it is ready, waits for stopSignal, then says which signal and exits 7.
  bundle = await createTempDir('stop-signal-');
  const entry = join(bundle.path, 'daemon.ts');
  writeFileSync(
    entry,
    `import { stopSignal } from ${JSON.stringify(join(import.meta.dirname, 'stop-signal.ts'))};
const stopped = stopSignal();
const serving = setInterval(() => undefined, 60_000); // a daemon's server keeps it alive
process.stdout.write('ready\\n');
const signal = await stopped;
clearInterval(serving);
process.stdout.write(\`stopping on \${signal}\\n\`);
process.exitCode = 7;
`,
  );
  daemon = join(bundle.path, 'daemon.mjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: daemon,
    logLevel: 'warning',
  });
});
afterAll(() => bundle.remove());

describe('stopSignal', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'resolves with %s and leaves the exit to the process',
    async (signal) => {
      const child = spawn(process.execPath, [daemon], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        let out = '';
        child.stdout.setEncoding('utf8');
        const ready = new Promise<void>((resolve) =>
          child.stdout.on('data', (chunk: string) => {
            out += chunk;
            if (out.includes('ready\n')) resolve();
          }),
        );
        const exited = once(child, 'exit');
        await ready;
        child.kill(signal);
        const [code, killedBy] = (await exited) as [number | null, string | null];
        expect({ code, killedBy, out }).toEqual({
          code: 7,
          killedBy: null,
          out: `ready\nstopping on ${signal}\n`,
        });
      } finally {
        child.kill('SIGKILL');
      }
    },
  );
});
