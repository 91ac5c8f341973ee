/**
 * Group commit for short write jobs: jobs that arrive while the database is busy with earlier ones
 * are handed to `run` together, which writes them in one transaction (and can write them as
 * multi-row statements), so many intake calls share one commit (one WAL flush) instead of paying
 * one each. Every job still gets its answer only after its writes committed.
 *
 * At most `maxConcurrent` batches run at once; a job that finds a slot free starts at once (no
 * waiting for company), so batching only happens under load. When a batch fails, each of its jobs
 * is run again alone, so one bad job cannot fail the others.
 */
export type BatchRunner<Job, Result> = (jobs: Job[]) => Promise<Result[]>;

interface Pending<Job> {
  job: Job;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class WriteBatcher<Job, Result> {
  private readonly queue: Array<Pending<Job>> = [];
  private running = 0;

  constructor(
    /** Writes the jobs in one transaction; one result per job, in order. */
    private readonly run: BatchRunner<Job, Result>,
    private readonly maxConcurrent = 4,
    private readonly maxBatch = 64,
  ) {}

  /** Resolves with the job's result once its batch committed. */
  submit(job: Job): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ job, resolve: resolve as (value: unknown) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.maxConcurrent && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.running += 1;
      void this.execute(batch).finally(() => {
        this.running -= 1;
        this.pump();
      });
    }
  }

  private async execute(batch: Array<Pending<Job>>): Promise<void> {
    let results: Result[];
    try {
      results = await this.run(batch.map((p) => p.job));
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      // Isolate the failure: every job again, alone.
      await Promise.all(batch.map((p) => this.run([p.job]).then(([result]) => p.resolve(result), p.reject)));
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]));
  }
}
