import { formatCount } from "./notices";

/** The rate is measured over this much of the most recent work, so one slow or quick batch does not swing it. */
const WINDOW_MS = 30_000;
/** No estimate before this much work was watched: the first batches (a model warming up, caches) mislead. */
const MIN_WATCH_MS = 10_000;

interface Sample {
	readonly at: number;
	readonly done: number;
}

/**
 * How long counted work ("1,200 / 5,000") has left, from the rate of its last 30 seconds. It takes
 * the clock at every call (milliseconds, any origin), so it has no timers of its own. One instance
 * per run of work.
 */
export class TimeLeft {
	private readonly samples: Sample[] = [];
	private started: number | null = null;

	/** Milliseconds left; null until 10 s were watched, and while nothing moved for the last 30 s. */
	estimate(done: number, total: number, now: number): number | null {
		this.started ??= now;
		this.samples.push({ at: now, done });
		// The oldest sample kept is the last one before the window: the rate spans the whole window.
		while (this.samples.length > 2 && now - this.samples[1].at >= WINDOW_MS) this.samples.shift();
		if (done >= total) return 0;
		const first = this.samples[0];
		const watched = now - first.at;
		if (now - this.started < MIN_WATCH_MS || watched <= 0) return null;
		const rate = (done - first.done) / watched;
		return rate > 0 ? (total - done) / rate : null;
	}

	/** "1,200 / 5,000 · about 4 min left", or just the counts while there is nothing to say. */
	progress(done: number, total: number, now: number): string {
		const counts = `${formatCount(done)} / ${formatCount(total)}`;
		const left = this.estimate(done, total, now);
		return left === null || done >= total ? counts : `${counts} · ${describeTimeLeft(left)}`;
	}
}

/** 40 s → "less than a minute left", 12.4 min → "about 12 min left", 80 min → "about 1 h 20 min left". */
export function describeTimeLeft(ms: number): string {
	const minutes = Math.round(ms / 60_000);
	if (ms < 60_000) return "less than a minute left";
	if (minutes < 60) return `about ${minutes} min left`;
	// Past an hour, five minutes either way is as exact as an estimate gets.
	const rounded = Math.round(ms / 300_000) * 5;
	const hours = Math.floor(rounded / 60);
	const rest = rounded % 60;
	return rest === 0 ? `about ${hours} h left` : `about ${hours} h ${rest} min left`;
}
