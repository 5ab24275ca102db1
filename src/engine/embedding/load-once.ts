/**
 * A model (or any resource) loaded on first use and shared by every later call. A failed load is
 * forgotten, so the next call tries again (a download finished, a file was put in place).
 */
export class LoadOnce<T> {
	private loading: Promise<T> | undefined;

	constructor(private readonly open: () => Promise<T>) {}

	get(): Promise<T> {
		this.loading ??= this.open().catch((error: unknown) => {
			this.loading = undefined;
			throw error;
		});
		return this.loading;
	}

	/** Forgets the resource; if it had loaded, hands it to `dispose` (a failed load has nothing to free). */
	async reset(dispose: (value: T) => Promise<unknown>): Promise<void> {
		const loading = this.loading;
		this.loading = undefined;
		const value = loading ? await loading.catch(() => undefined) : undefined;
		if (value !== undefined) await dispose(value);
	}
}
