// Events and Component (lifecycle, registered cleanups and events). Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { type AnyCallback, type Callback } from "./dom";

export interface EventRef {
	readonly events: Events;
	readonly name: string;
	readonly callback: AnyCallback;
	readonly ctx?: unknown;
}

export class Events {
	private readonly handlers = new Map<string, EventRef[]>();

	on(name: string, callback: Callback, ctx?: unknown): EventRef {
		const ref: EventRef = { events: this, name, callback: callback as AnyCallback, ctx };
		const list = this.handlers.get(name) ?? [];
		list.push(ref);
		this.handlers.set(name, list);
		return ref;
	}

	offref(ref: EventRef): void {
		const list = this.handlers.get(ref.name);
		if (list) this.handlers.set(ref.name, list.filter((r) => r !== ref));
	}

	trigger(name: string, ...data: unknown[]): void {
		for (const ref of [...(this.handlers.get(name) ?? [])]) this.tryTrigger(ref, data);
	}

	tryTrigger(ref: EventRef, args: unknown[]): void {
		try {
			ref.callback.apply(ref.ctx, args);
		} catch (error) {
			// Obsidian logs handler errors and keeps dispatching; tests see them in fakeErrors.
			fakeErrors.push(error);
			console.error(error);
		}
	}

	/** Test helper: how many handlers are registered (all events, or one). */
	listenerCount(name?: string): number {
		if (name !== undefined) return this.handlers.get(name)?.length ?? 0;
		let n = 0;
		for (const list of this.handlers.values()) n += list.length;
		return n;
	}
}

/** Errors thrown by event handlers (Obsidian logs them to the console). */
export const fakeErrors: unknown[] = [];

export class Component {
	private loaded = false;
	private readonly cleanups: (() => unknown)[] = [];

	/** The promise an async onload returned (Obsidian awaits a plugin's onload). */
	private loading: Promise<unknown> | undefined;

	load(): void {
		if (this.loaded) return;
		this.loaded = true;
		const result: unknown = this.onload();
		if (result instanceof Promise) this.loading = result;
	}

	onload(): void | Promise<void> {}

	/** Test helper: load() and wait for an async onload, as Obsidian does for plugins. */
	async fakeLoad(): Promise<void> {
		this.load();
		await this.loading;
	}

	unload(): void {
		if (!this.loaded) return;
		this.loaded = false;
		while (this.cleanups.length > 0) {
			try {
				this.cleanups.pop()?.();
			} catch (error) {
				fakeErrors.push(error);
			}
		}
		this.onunload();
	}

	onunload(): void {}

	register(cb: () => unknown): void {
		this.cleanups.push(cb);
	}

	registerEvent(ref: EventRef): void {
		this.register(() => ref.events.offref(ref));
	}
}
