/** Questions of the vault retrieval benchmark and how a ranked answer is scored. */

export interface Question {
	readonly id: string;
	readonly question: string;
	/** The note that answers, as a vault path. */
	readonly note: string;
	/** The heading of the section that answers (the nearest heading above the answer). */
	readonly section?: string;
	/** tuning or held-out: settings are chosen on one half and checked on the other. */
	readonly split?: string;
	/** Multilingual set: the language of the question and note (zh, ja, ko, th, fr...). */
	readonly language?: string;
}

export interface QuestionFile {
	readonly vault: string;
	readonly commit?: string;
	readonly questions: readonly Question[];
}

/** One result as the benchmark sees it: the note it came from and the passages it reports. */
export interface RankedResult {
	readonly path: string;
	readonly name: string;
	readonly passages?: readonly { readonly heading?: string }[];
}

export interface Score {
	readonly question: Question;
	/** 1-based rank of the first result from the expected note. */
	readonly noteRank?: number;
	/** 1-based rank of the first result from the expected note whose passages include the section. */
	readonly sectionRank?: number;
	/** False when no result in the answer carried passages: section hits cannot be told. */
	readonly sectionsReported: boolean;
	readonly top: readonly string[];
}

const norm = (s: string) => s.normalize("NFKC").replace(/[#*_`[\]]/g, "").replace(/\s+/g, " ").trim().toLowerCase();

/**
 * A passage heading matches when it is the section, or a heading path that ends with it
 * ("Setup > Install", "Setup / Install", "Setup#Install"); the section itself may hold ">".
 */
export function sectionMatches(heading: string | undefined, section: string): boolean {
	if (!heading) return false;
	const want = norm(section);
	const got = norm(heading);
	if (got === want) return true;
	return got.endsWith(want) && /[>/#›]\s*$/.test(got.slice(0, got.length - want.length));
}

export function scoreQuestion(question: Question, ranked: readonly RankedResult[]): Score {
	let noteRank: number | undefined;
	let sectionRank: number | undefined;
	const sectionsReported = ranked.some((r) => r.passages !== undefined);
	ranked.forEach((r, i) => {
		if (r.path !== question.note) return;
		noteRank ??= i + 1;
		if (question.section !== undefined && r.passages?.some((p) => sectionMatches(p.heading, question.section as string))) sectionRank ??= i + 1;
	});
	return { question, noteRank, sectionRank, sectionsReported, top: ranked.map((r) => r.path || r.name) };
}

export interface Summary {
	readonly n: number;
	readonly note5: number | undefined;
	readonly note10: number | undefined;
	/** undefined (n.a.) when no answer reported passages. */
	readonly section5: number | undefined;
	readonly section10: number | undefined;
}

export function summarise(scores: readonly Score[]): Summary {
	const n = scores.length;
	const share = (hit: (s: Score) => boolean) => (n === 0 ? undefined : scores.filter(hit).length / n);
	const within = (rank: number | undefined, k: number) => rank !== undefined && rank <= k;
	const sections = scores.some((s) => s.sectionsReported);
	return {
		n,
		note5: share((s) => within(s.noteRank, 5)),
		note10: share((s) => within(s.noteRank, 10)),
		section5: sections ? share((s) => within(s.sectionRank, 5)) : undefined,
		section10: sections ? share((s) => within(s.sectionRank, 10)) : undefined,
	};
}
