/** A progress display for one long operation. */
export interface Progress {
  /** `done` of `total` units are done; `note` says what is being worked on. */
  update(done: number, total: number, note?: string): void;
  /** The operation ended: a bar is drawn once more and its line ended; a line says it is done. */
  finish(): void;
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  /** What is in progress (`import`, `export`). */
  readonly label: string;
  /** Where the display goes (stderr). */
  write(text: string): void;
  /** A terminal gets a bar redrawn in place; anything else gets periodic lines. */
  readonly tty: boolean;
  /** Milliseconds of the clock the periods are measured on. */
  now(): number;
  /** Lines when not a terminal: the first after this long, then one per period (default 5 s). */
  readonly intervalMs?: number;
  /** The bar is redrawn at most this often (default 100 ms), and for the last unit. */
  readonly redrawMs?: number;
  /** Characters of the bar (default 30). */
  readonly barWidth?: number;
}

const share = (done: number, total: number): number =>
  total <= 0 ? 100 : Math.min(100, Math.floor((100 * done) / total));

/**
 * A progress display. On a terminal: `label [#######.......] 450/1000 45% note`, redrawn in place
 * (`\r`, padded over a longer previous line) at most every `redrawMs`, and ended with a newline
 * by `finish`. Elsewhere (a pipe, a log file): nothing for a run shorter than `intervalMs`, then a
 * line `label: 450/1000 (45%) note` every `intervalMs`, and `label: done, 1000/1000` at the end,
 * so scripts stay quiet and a long run in a log still shows it is moving. Never throws.
 */
export function createProgress(o: ProgressOptions): Progress {
  const intervalMs = o.intervalMs ?? 5000;
  const redrawMs = o.redrawMs ?? 100;
  const width = o.barWidth ?? 30;
  const start = o.now();
  let last = { done: 0, total: 0, note: '' };
  let lastDraw = -Infinity;
  let lastLine = start;
  let drawnLength = 0;
  let lines = 0;
  let finished = false;

  const bar = (): string => {
    const pct = share(last.done, last.total);
    const filled = Math.round((pct / 100) * width);
    const line = `${o.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${last.done}/${last.total} ${pct}%${last.note ? ` ${last.note}` : ''}`;
    const pad = ' '.repeat(Math.max(0, drawnLength - line.length));
    drawnLength = line.length;
    return `\r${line}${pad}`;
  };
  const line = (): string =>
    `${o.label}: ${last.done}/${last.total} (${share(last.done, last.total)}%)${last.note ? ` ${last.note}` : ''}\n`;

  return {
    update(done, total, note = '') {
      if (finished) return;
      last = { done, total, note };
      const now = o.now();
      if (o.tty) {
        if (now - lastDraw >= redrawMs || done >= total) {
          lastDraw = now;
          o.write(bar());
        }
      } else if (now - lastLine >= intervalMs) {
        lastLine = now;
        lines++;
        o.write(line());
      }
    },
    finish() {
      if (finished) return;
      finished = true;
      if (o.tty) {
        if (lastDraw !== -Infinity) o.write(`${bar()}\n`);
      } else if (lines > 0) {
        o.write(`${o.label}: done, ${last.done}/${last.total}\n`);
      }
    },
  };
}
