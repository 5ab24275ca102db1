import { Notice } from "obsidian";
import { CancelledError, type WorkGate } from "./work-gate";
import { noticeError, noticeInfo } from "./notices";

export interface TaskProgress {
	readonly title: string;
	/** "reading 1,234 / 10,000", or "" before the first report. */
	readonly detail: string;
}

export interface TaskControl {
	readonly signal: AbortSignal;
	/** Shown in the progress notice and the status bar. */
	report(detail: string): void;
}

/**
 * Long work (full sync, reindex, reflect, decay) runs one at a time through here: a progress
 * notice with a Cancel button, the status bar shows the same text, cancelling stops the work at
 * its next call into the engine (transactions roll back), and failures become a notice that
 * says what to do.
 */
export class TaskRunner {
	private active: { progress: TaskProgress; controller: AbortController } | null = null;
	private readonly listeners = new Set<() => void>();

	constructor(private readonly gate: WorkGate) {}

	get current(): TaskProgress | null {
		return this.active?.progress ?? null;
	}

	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	cancel(): void {
		this.active?.controller.abort();
	}

	/** Resolves once no task is running (work started after a restart, then what follows it). */
	whenIdle(): Promise<void> {
		if (!this.active) return Promise.resolve();
		return new Promise((resolve) => {
			const off = this.onChange(() => {
				if (this.active) return;
				off();
				resolve();
			});
		});
	}

	/**
	 * Runs `work`; resolves with its result, or null when it was cancelled or failed (the person
	 * was told). `poll` is called every 250 ms while it runs, for progress read from counters.
	 */
	async run<T>(
		title: string,
		work: (control: TaskControl) => Promise<T>,
		options: { poll?: (control: TaskControl) => void; quiet?: boolean; afterCancel?: string } = {},
	): Promise<T | null> {
		if (this.active) {
			noticeInfo(`${this.active.progress.title} is still running. Wait for it, or cancel it first.`);
			return null;
		}
		const controller = new AbortController();
		let view: ProgressNotice | null = null;
		this.active = { progress: { title, detail: "" }, controller };
		const control: TaskControl = {
			signal: controller.signal,
			report: (detail) => {
				if (!this.active) return;
				this.active.progress = { title, detail };
				view?.update(detail);
				this.emit();
			},
		};
		// The notice only shows the work: if it cannot be drawn, the work still runs (status bar, panel).
		const showNotice = () => {
			try {
				view ??= new ProgressNotice(title, () => controller.abort());
				view.update(this.active?.progress.detail ?? "");
			} catch (error) {
				console.error("Engrama: the progress notice could not be shown", error);
			}
		};
		let noticeTimer: number | undefined;
		let pollTimer: number | undefined;
		try {
			// Quiet work (the catch-up sync at startup) only shows a notice when it takes a while.
			if (options.quiet) noticeTimer = window.setTimeout(showNotice, 3000);
			else showNotice();
			this.emit();
			if (options.poll) pollTimer = window.setInterval(() => options.poll?.(control), 250);
			return await this.gate.run(title, controller.signal, () => work(control));
		} catch (error) {
			// Work that leaves something to finish says how (afterCancel); a cancel is not a failure.
			if (error instanceof CancelledError || controller.signal.aborted) noticeInfo(`${title} was cancelled.${options.afterCancel ? ` ${options.afterCancel}` : ""}`, options.afterCancel ? 12_000 : 5000);
			else noticeError(`${title} failed`, error);
			return null;
		} finally {
			if (pollTimer !== undefined) window.clearInterval(pollTimer);
			if (noticeTimer !== undefined) window.clearTimeout(noticeTimer);
			(view as ProgressNotice | null)?.hide();
			this.active = null;
			this.emit();
		}
	}

	private emit(): void {
		for (const listener of this.listeners) listener();
	}
}

/** A notice that stays while work runs: text, a progress bar and a Cancel button. */
export class ProgressNotice {
	private readonly notice: Notice;
	private readonly text: HTMLElement;
	private readonly bar: HTMLProgressElement;

	constructor(
		private readonly title: string,
		onCancel: () => void,
	) {
		this.notice = new Notice(title, 0);
		const el = this.notice.messageEl;
		el.empty();
		el.addClass("engrama-progress");
		this.text = el.createDiv({ cls: "engrama-progress-text", text: `${title}…` });
		this.bar = el.createEl("progress", { cls: "engrama-progress-bar" });
		const cancel = el.createEl("button", { cls: "engrama-progress-cancel", text: "Cancel" });
		cancel.addEventListener("click", (evt) => {
			// A click on a notice hides it; the progress must stay until the work has stopped.
			evt.stopPropagation();
			onCancel();
			cancel.disabled = true;
			cancel.setText("Cancelling…");
		});
	}

	update(detail: string): void {
		this.text.setText(detail ? `${this.title}: ${detail}` : `${this.title}…`);
		const fraction = /([\d,]+)\s*\/\s*([\d,]+)/.exec(detail);
		if (fraction) {
			this.bar.max = Number(fraction[2]?.replace(/,/g, "")) || 1;
			this.bar.value = Number(fraction[1]?.replace(/,/g, "")) || 0;
		}
	}

	hide(): void {
		this.notice.hide();
	}
}
