import { describe, expect, it } from 'vitest';
import { createProgress } from './progress-reporter.js';

/** A progress display writing into `out`, on a clock the test moves. */
function display(tty: boolean) {
  let now = 0;
  const out: string[] = [];
  const progress = createProgress({
    label: 'import',
    write: (t) => void out.push(t),
    tty,
    now: () => now,
    intervalMs: 5000,
    redrawMs: 100,
    barWidth: 10,
  });
  return { progress, out, advance: (ms: number) => void (now += ms) };
}

describe('createProgress', () => {
  it('draws a bar in place on a terminal, at most every redraw period, ending the line', () => {
    const { progress, out, advance } = display(true);
    progress.update(1, 10);
    progress.update(2, 10); // within 100 ms of the last draw: not drawn
    advance(150);
    progress.update(5, 10, '5 objects');
    advance(10);
    progress.update(10, 10); // the last unit is always drawn
    progress.finish();
    expect(out).toEqual([
      '\rimport [#.........] 1/10 10%',
      '\rimport [#####.....] 5/10 50% 5 objects',
      '\rimport [##########] 10/10 100%        ',
      '\rimport [##########] 10/10 100%\n',
    ]);
  });

  it('prints nothing elsewhere for a run shorter than the interval', () => {
    const { progress, out, advance } = display(false);
    for (let i = 1; i <= 100; i++) {
      advance(10);
      progress.update(i, 100);
    }
    progress.finish();
    expect(out).toEqual([]);
  });

  it('prints a line per interval elsewhere, and one at the end', () => {
    const { progress, out, advance } = display(false);
    for (let i = 1; i <= 100; i++) {
      advance(200);
      progress.update(i, 100, `${i * 3} objects`);
    }
    progress.finish();
    progress.update(100, 100); // after finish: ignored
    expect(out).toEqual([
      'import: 25/100 (25%) 75 objects\n',
      'import: 50/100 (50%) 150 objects\n',
      'import: 75/100 (75%) 225 objects\n',
      'import: 100/100 (100%) 300 objects\n',
      'import: done, 100/100\n',
    ]);
  });
});
