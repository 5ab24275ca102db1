/** Runs async jobs one at a time, in arrival order, so concurrent callers never interleave writes. */
export class SerialQueue {
	private tail: Promise<unknown> = Promise.resolve();

	run<T>(job: () => Promise<T>): Promise<T> {
		const result = this.tail.then(job, job);
		// Keep the chain alive whatever the job did; the caller sees the real outcome.
		this.tail = result.catch(() => undefined);
		return result;
	}
}
