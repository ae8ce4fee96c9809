/**
 * Progress of long operator work, on stderr only: stdout carries the results, which may be
 * piped or parsed. On a terminal one counter line is rewritten in place; otherwise (a pipe, a
 * CI log) each update is a plain line of its own, so that logs stay readable.
 *
 *   const p = progress('keys listed');
 *   p.update(50);            // TTY: "\rkeys listed: 50"   pipe: "keys listed: 50"
 *   p.update(3, 12);         // "... 3/12"
 *   p.done('120 keys');      // ends the line: "keys listed: 120 keys (1.2 s)"
 */
export interface Progress {
  /** `done` so far, of `total` when known, with an optional note (an id, never personal data). */
  update(done: number, total?: number, note?: string): void;
  /** Ends the progress with a summary and the elapsed time. */
  done(summary: string): void;
}

export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export function progress(label: string, stream: ProgressStream = process.stderr, now: () => number = () => performance.now()): Progress {
  const started = now();
  const tty = stream.isTTY === true;
  let open = false;
  const elapsed = () => `${((now() - started) / 1000).toFixed(1)} s`;
  return {
    update(done, total, note) {
      const text = `${label}: ${done}${total !== undefined ? `/${total}` : ''}${note ? ` ${note}` : ''}`;
      if (tty) {
        // \x1b[K clears what a longer earlier line left behind.
        stream.write(`\r${text}\x1b[K`);
        open = true;
      } else {
        stream.write(`${text}\n`);
      }
    },
    done(summary) {
      stream.write(`${tty && open ? '\r' : ''}${label}: ${summary} (${elapsed()})${tty ? '\x1b[K' : ''}\n`);
      open = false;
    },
  };
}
