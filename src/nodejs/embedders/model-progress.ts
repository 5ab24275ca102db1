import type { ModelProgress } from "./transformers-embedding-provider";

/**
 * Prints model download progress on stderr (stdout stays machine-readable): one line per file
 * and at most one update per `everyMs`. Files read from disk only say "loading".
 */
export function stderrModelProgress(model: string, write: (line: string) => void = (l) => process.stderr.write(l), everyMs = 1000): (p: ModelProgress) => void {
	const last = new Map<string, number>();
	return (p) => {
		const file = p.file ?? "";
		if (p.status === "progress" && p.total && p.total > 0) {
			const now = Date.now();
			const done = (p.loaded ?? 0) >= p.total;
			if (!done && now - (last.get(file) ?? 0) < everyMs) return;
			last.set(file, now);
			const mb = (n: number) => (n / 1_048_576).toFixed(1);
			write(`engrama: model ${model}: ${file} ${Math.floor(p.progress ?? 0)}% (${mb(p.loaded ?? 0)}/${mb(p.total)} MB)\n`);
		} else if (p.status === "ready") {
			write(`engrama: model ${model} ready\n`);
		}
	};
}
