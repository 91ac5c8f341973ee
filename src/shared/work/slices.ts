/**
 * Long synchronous work written as a generator that yields between steps (for example one group of
 * a large body's elements parsed per step). `runToEnd` runs it in one go; `runInSlices` gives the
 * event loop back whenever a slice has run for `sliceMs`, so that other calls, timers and database
 * replies are served in between instead of waiting for the whole job (docs/DECISIONS.md, "Memory").
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs every step at once and returns the result. */
export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export interface SliceOptions {
  /** Longest run of steps between two pauses, in milliseconds. */
  sliceMs: number;
  /** A monotonic clock in milliseconds. */
  now?: () => number;
  /** Gives the event loop back; resolves when the work may go on. */
  pause?: () => Promise<void>;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs the steps, pausing (by default until the event loop's next turn) whenever a slice has run for `sliceMs`. */
export async function runInSlices<T>(steps: Steps<T>, { sliceMs, now = () => performance.now(), pause = nextTurn }: SliceOptions): Promise<T> {
  let sliceStart = now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (now() - sliceStart >= sliceMs) {
      await pause();
      sliceStart = now();
    }
  }
}
