#!/usr/bin/env node
// `pnpm bench`: runs every package's `bench` script one at a time (these machines are noisy:
// nothing else runs meanwhile), collects the reports they write to bench-results/<name>.json, and writes
// docs/benchmarks.json and docs/benchmarks.md, each figure beside the previous run's and the ratio.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePnpm } from './prerequisites.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
ensurePnpm(root);
const filter = process.argv.slice(2);
const resultsDir = join(root, 'bench-results');
rmSync(resultsDir, { recursive: true, force: true });
const turboArgs = [
  'exec',
  'turbo',
  'run',
  'bench',
  '--concurrency=1',
  '--env-mode=loose',
  '--force',
];
for (const f of filter) turboArgs.push(f.startsWith('-') ? f : `--filter=${f}`);
const status = spawnSync('pnpm', turboArgs, {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NETLEDGER_BENCH_DIR: resultsDir },
}).status;

// The code measured: HEAD, marked when the working tree differed from it.
const git = (...args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();
const commit = `${git('rev-parse', '--short=12', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' with uncommitted changes' : ''}`;

const previousPath = join(root, 'docs', 'benchmarks.json');
const previous = existsSync(previousPath)
  ? JSON.parse(readFileSync(previousPath, 'utf8'))
  : { sections: {} };
const sections = { ...previous.sections };
const ran = [];
const files = existsSync(resultsDir)
  ? readdirSync(resultsDir).filter((f) => f.endsWith('.json'))
  : [];
for (const f of files) {
  const w = f.replace(/\.json$/, '');
  const r = JSON.parse(readFileSync(join(resultsDir, f), 'utf8'));
  const before = previous.sections?.[w];
  for (const m of r.results) {
    const old = before?.results?.find((x) => x.name === m.name);
    if (old) m.previous = old.value;
  }
  sections[w] = { ...r, date: new Date().toISOString(), commit };
  ran.push(w);
}
const machine = {
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
  node: process.version,
  kernel: execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim(),
};
writeFileSync(previousPath, `${JSON.stringify({ machine, sections }, null, 2)}\n`);

const fmt = (v) =>
  Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3);
let md = `# Benchmarks\n\nWritten by \`pnpm bench\` (scripts/bench.mjs); do not edit by hand. Each package's figures come\nfrom one run of its \`bench\` script, with nothing else running. "Ratio" is this run's value over the\nprevious run's (for "higher is better" metrics, above 1 is an improvement; for "lower", below 1).\n\nLast machine: ${machine.cpus}, Node ${machine.node}, Linux ${machine.kernel}.\n`;
for (const [w, s] of Object.entries(sections).sort()) {
  const at = s.commit ? ` at commit ${s.commit}` : ' (commit not recorded)';
  md += `\n## ${s.title} (\`${w}\`)\n\nMeasured ${s.date.slice(0, 16).replace('T', ' ')} UTC${at} with \`${s.command}\`.\n`;
  if (s.notes) md += `\n${s.notes}\n`;
  md +=
    '\n| metric | value | unit | better | previous | ratio | target |\n|---|---:|---|---|---:|---:|---|\n';
  for (const m of s.results) {
    const ratio = m.previous ? fmt(m.value / m.previous) : '';
    md += `| ${m.name} | ${fmt(m.value)} | ${m.unit} | ${m.better} | ${m.previous !== undefined ? fmt(m.previous) : 'first run'} | ${ratio} | ${m.target ?? ''} |\n`;
  }
}
writeFileSync(join(root, 'docs', 'benchmarks.md'), md);
console.log(
  `\ndocs/benchmarks.md: ${ran.length} package(s) measured (${ran.join(', ') || 'none'})`,
);
process.exit(status ?? 1);
