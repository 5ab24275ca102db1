import { errorMessage, ValidationError } from "../engine/errors";
import type { Engine, EngineHostDeps } from "./engine-open";
import { noticeInfo } from "./notices";
import { NEO4J_DESKTOP_ONLY } from "./settings";
import { WorkGate } from "./work-gate";
import type { SecondWriterError } from "./writer-guard";

export type { Engine, EngineHostDeps } from "./engine-open";

export type EngineState =
	| { readonly kind: "idle" }
	| { readonly kind: "starting" }
	| { readonly kind: "ready"; readonly engine: Engine }
	| { readonly kind: "failed"; readonly error: string };

/**
 * Owns the open engine (opened by engine-open.ts, loaded on the first start): database, embedder,
 * profile, skills and the vault sync over the Obsidian API; `restart` applies settings that need a new engine without restarting Obsidian. Not a
 * child Component of the plugin: unloading closes it through EngramaController.shutdown, after the
 * running task has stopped, so that the notes still waiting for sync reach the last snapshot.
 */
export class EngineHost {
	readonly gate = new WorkGate();
	private current: EngineState = { kind: "idle" };
	private opening: Promise<Engine | null> | null = null;
	private closing: Promise<void> = Promise.resolve();
	private readonly listeners = new Set<() => void>();
	/** The mobile Neo4j → SQLite fallback is told once per session, not at every reopen. */
	private toldNeo4jFallback = false;
	private takeOverNext = false;

	constructor(private readonly deps: EngineHostDeps) {}

	get state(): EngineState {
		return this.current;
	}

	get engine(): Engine | null {
		return this.current.kind === "ready" ? this.current.engine : null;
	}

	/** Called on every state change (status bar, panel); returns the unsubscribe function. */
	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	changed(): void {
		for (const listener of this.listeners) listener();
	}

	private setState(state: EngineState): void {
		this.current = state;
		this.changed();
	}

	/** Opens the engine (once); resolves with null when it failed (the state says why). */
	start(): Promise<Engine | null> {
		this.opening ??= this.closing.then(() => this.open());
		return this.opening;
	}

	/** The open engine, waiting for it while it starts; throws a message for people otherwise. */
	async ready(): Promise<Engine> {
		const engine = this.current.kind === "idle" ? null : await (this.opening ?? Promise.resolve(null));
		if (engine) return engine;
		if (this.current.kind === "failed") throw new ValidationError(`Engrama could not open its memory: ${this.current.error}`);
		throw new ValidationError("Engrama is still starting. Try again in a moment.");
	}

	/** Closes and reopens with the current settings. */
	async restart(): Promise<Engine | null> {
		await this.stop();
		return this.start();
	}

	/** The next open claims the database for this device although another device wrote it last. */
	requestTakeOver(): void {
		this.takeOverNext = true;
	}

	/** Closes the engine; safe to call more than once. */
	stop(): Promise<void> {
		const opening = this.opening;
		this.opening = null;
		this.closing = this.closing.then(async () => {
			const engine = opening ? await opening : null;
			if (engine) await (await import("./engine-open")).closeEngine(engine);
			if (this.current.kind !== "idle") this.setState({ kind: "idle" });
		});
		return this.closing;
	}

	/** Resolves when the last close finished (tests, the unload path). */
	whenClosed(): Promise<void> {
		return this.closing;
	}

	/** Another device took the database: close it and say why (the panel and status bar show it). */
	private async failWith(error: SecondWriterError): Promise<void> {
		noticeInfo(error.message, 0);
		await this.stop();
		this.setState({ kind: "failed", error: error.message });
	}

	private async open(): Promise<Engine | null> {
		this.setState({ kind: "starting" });
		try {
			// A stop() during opening awaits this promise and closes what it returns.
			const takeOver = this.takeOverNext;
			this.takeOverNext = false;
			// The engine's modules are evaluated here, on the first start, not when Obsidian evaluates main.js.
			const { openEngine, openWhileHeldHere } = await import("./engine-open");
			const engine = await openWhileHeldHere(() => openEngine(this.deps, this.gate, {
				takeOver,
				onNeo4jFallback: () => {
					if (this.toldNeo4jFallback) return;
					this.toldNeo4jFallback = true;
					noticeInfo(`this vault's settings choose Neo4j; this device uses SQLite instead. ${NEO4J_DESKTOP_ONLY}`, 10_000);
				},
				onSecondWriter: (error) => void this.failWith(error),
			}));
			this.setState({ kind: "ready", engine });
			return engine;
		} catch (error) {
			console.error("Engrama: opening the memory failed", error);
			this.setState({ kind: "failed", error: errorMessage(error) });
			return null;
		}
	}
}
