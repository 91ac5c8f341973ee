/** Gives the budget back; calling it again does nothing. */
export type Release = () => void;

const NOTHING_HELD: Release = () => undefined;

/**
 * Caps the bytes of request bodies being processed at once. A large body costs several times its
 * size while it is decoded and evaluated (text, parsed objects, decisions, the answer), and one
 * thread does the work anyway: processing several at once multiplies the peak memory, not the
 * throughput.
 *
 * - A body of at most `smallBytes` never waits and is not counted.
 * - Others are admitted first come, first served while the bytes held stay within `budgetBytes`;
 *   a body larger than the budget is admitted when nothing else holds it (so it runs alone).
 * - A waiting call holds nothing, and every holder releases in a `finally`: no deadlock.
 * - Waiting calls are admitted from a macrotask (`setImmediate`), never straight from a release:
 *   otherwise one large body after another could run in a single chain of microtasks and starve the
 *   event loop (timers, sockets, the database pool's connection timeout) for seconds.
 */
export class ByteBudget {
  private held = 0;
  private admitting = false;
  private readonly queue: { bytes: number; admit: (release: Release) => void }[] = [];

  constructor(
    readonly budgetBytes: number,
    readonly smallBytes: number,
  ) {
    if (!(budgetBytes > 0) || !(smallBytes >= 0)) throw new RangeError('ByteBudget: budgetBytes must be > 0 and smallBytes >= 0');
  }

  /** Bytes held by the bodies admitted and not yet released. */
  get heldBytes(): number {
    return this.held;
  }

  /** Calls waiting to be admitted. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves once `bytes` may be processed, with the function that gives them back. */
  acquire(bytes: number): Promise<Release> {
    if (bytes <= this.smallBytes) return Promise.resolve(NOTHING_HELD);
    if (this.queue.length === 0 && this.fits(bytes)) return Promise.resolve(this.take(bytes));
    return new Promise((admit) => this.queue.push({ bytes, admit }));
  }

  private fits(bytes: number): boolean {
    return this.held === 0 || this.held + bytes <= this.budgetBytes;
  }

  private take(bytes: number): Release {
    this.held += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= bytes;
      if (this.queue.length > 0 && !this.admitting) {
        this.admitting = true;
        setImmediate(() => this.admitWaiting());
      }
    };
  }

  /** In arrival order: a large body at the head is not overtaken by smaller ones (no starvation). */
  private admitWaiting(): void {
    this.admitting = false;
    while (this.queue.length > 0 && this.fits(this.queue[0].bytes)) {
      const next = this.queue.shift()!;
      next.admit(this.take(next.bytes));
    }
  }
}
