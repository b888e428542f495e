import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The static client's own Go tests (client/*_test.go): the wire format, the agent exchange and its
// bounded waits, the fallback's exit statuses, and the flock(2) lock helper.
describe('the static client (Go)', () => {
  it('passes `go vet` and `go test`', () => {
    const dir = join(import.meta.dirname, '..', 'client');
    const env = { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' };
    for (const args of [
      ['vet', './...'],
      ['test', '-count=1', './...'],
    ]) {
      const r = spawnSync('go', args, { cwd: dir, env, encoding: 'utf8' });
      expect(r.error, 'the Go toolchain (go on PATH) builds the static client').toBeUndefined();
      expect(`go ${args.join(' ')} exited ${r.status}\n${r.stdout}${r.stderr}`).toMatch(
        /exited 0\n/,
      );
    }
  }, 300_000);
});
