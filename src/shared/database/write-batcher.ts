/**
 * Group commit for short write jobs: jobs that arrive while the database is busy with earlier ones
 * are run together in one transaction, so many intake calls share one commit (one WAL flush)
 * instead of paying one each. Every job still gets its answer only after its writes committed.
 *
 * At most `maxConcurrent` transactions run at once; a job that finds a slot free starts at once (no
 * waiting for company), so batching only happens under load. When a shared transaction fails, each
 * of its jobs is run again in a transaction of its own, so one bad job cannot fail the others.
 */
export type TransactionRunner<Tx> = <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;

interface Job<Tx> {
  work: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class WriteBatcher<Tx> {
  private readonly queue: Array<Job<Tx>> = [];
  private running = 0;

  constructor(
    private readonly transaction: TransactionRunner<Tx>,
    private readonly maxConcurrent = 4,
    private readonly maxBatch = 64,
  ) {}

  /** Runs `work` in a transaction, possibly shared with other jobs; resolves after the commit. */
  submit<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.maxConcurrent && this.queue.length > 0) {
      const jobs = this.queue.splice(0, this.maxBatch);
      this.running += 1;
      void this.execute(jobs).finally(() => {
        this.running -= 1;
        this.pump();
      });
    }
  }

  private async execute(jobs: Array<Job<Tx>>): Promise<void> {
    let results: unknown[];
    try {
      results = await this.transaction(async (tx) => {
        const done: unknown[] = [];
        for (const job of jobs) done.push(await job.work(tx));
        return done;
      });
    } catch (error) {
      if (jobs.length === 1) return jobs[0].reject(error);
      // Isolate the failure: every job again, alone.
      await Promise.all(jobs.map((job) => this.transaction(job.work).then(job.resolve, job.reject)));
      return;
    }
    jobs.forEach((job, i) => job.resolve(results[i]));
  }
}
