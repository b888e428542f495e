import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The golden corpus is Go's, not netledger's: test/golden/gen writes every file of it with Go's
// encoding/json from structs that declare Calico's fields and json tags (test/golden/README.md).
// Here the program runs again and the committed corpus must be exactly what it writes, so a file
// edited by hand, or written by netledger's own encoder, fails.

const GOLDEN = join(import.meta.dirname, 'golden');
const GEN = join(GOLDEN, 'gen');
const GO_ENV = { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' };

/** Runs a Go toolchain command in gen/; throws, naming the command, unless it exits 0. */
function goTool(command: string, args: string[]): string {
  const r = spawnSync(command, args, { cwd: GEN, env: GO_ENV, encoding: 'utf8' });
  if (r.error) {
    throw new Error(
      `the Go toolchain (\`${command}\` on PATH) generates the golden corpus: ${r.error.message}`,
    );
  }
  if (r.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${r.status}\n${r.stdout}${r.stderr}`);
  }
  return r.stdout;
}

const listing = (dir: string): string[] =>
  [
    'corpus.json',
    ...['values', 'after'].flatMap((d) => readdirSync(join(dir, d)).map((f) => `${d}/${f}`)),
  ].sort();

describe("the golden corpus is what Go's encoding/json writes", () => {
  let generated = '';

  beforeAll(() => {
    generated = mkdtempSync(join(tmpdir(), 'netledger-golden-'));
    goTool('go', ['run', '.', '-out', generated]);
  }, 300_000);

  afterAll(() => {
    if (generated) rmSync(generated, { recursive: true, force: true });
  });

  it('gen is formatted and passes go vet', () => {
    expect(goTool('gofmt', ['-l', '.'])).toBe('');
    goTool('go', ['vet', './...']);
  }, 300_000);

  it('writes the same files as are committed', () => {
    expect(listing(GOLDEN)).toEqual(listing(generated));
    expect(listing(GOLDEN).length).toBeGreaterThan(20);
  });

  it.each(listing(GOLDEN))('%s is byte for byte what Go writes', (file) => {
    expect(readFileSync(join(GOLDEN, file), 'utf8')).toBe(
      readFileSync(join(generated, file), 'utf8'),
    );
  });

  it("carries the CNI plugin's timestamp as Go's time.Time.String() writes it, nanoseconds and all", () => {
    // cni-plugin/pkg/ipamplugin/ipam_plugin.go: `time.Now().UTC().String()`.
    expect(readFileSync(join(generated, 'values', 'block.txt'), 'utf8')).toContain(
      '"timestamp":"2026-03-04 05:06:07.123456789 +0000 UTC"',
    );
  });
});
