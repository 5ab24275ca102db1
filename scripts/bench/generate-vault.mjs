#!/usr/bin/env node
// Generates a synthetic Obsidian vault for sync benchmarks: typed notes (frontmatter with
// engrama_label, properties, tags and a `relations` map) and untyped daily/meeting/reading notes,
// 0.5-4 KB bodies with wikilinks (about 10% unresolved), inline tags, headings, lists and code.
// Deterministic for a given --seed.
// Usage: node scripts/bench/generate-vault.mjs --notes 10000 --out /tmp/vault-10k [--seed 1] [--with-ids]
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

function arg(name, fallback) {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 && process.argv[i + 1] && !process.argv[i + 1].startsWith("--") ? process.argv[i + 1] : fallback;
}

function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const WORDS = `alpha beta gamma delta ledger harbor signal vector cobalt maple orbit prism summit canyon
ember falcon glacier horizon island jasper kernel lumen meadow nimbus onyx pioneer quartz raven sierra
timber umber violet willow xenon yonder zephyr anchor beacon cipher drift echo fable grove haven ivory
juniper kestrel lattice mosaic nectar oasis pylon quill rhombus sable tundra utopia vertex wharf`.split(/\s+/);
const VERBS = "sync cache retry merge index route queue parse render deploy audit migrate".split(" ");
const TOPICS = "payments auth caching search messaging billing logistics scheduling frontend backend data security".split(" ");
const SENTENCES = [
	"The first version kept everything in one table, which was fine until the second customer arrived.",
	"We measured it twice and the numbers did not move, so the bottleneck is somewhere else.",
	"Retries are safe only when the operation is idempotent; otherwise they double the damage.",
	"Most of the time went into reading the old code and writing down what it actually did.",
	"A short checklist before each release caught more problems than the extra tests did.",
	"The client asked for a weekly report, so the export runs every Monday at six.",
	"Keeping the cache honest means deciding when data stops being true, not just when it is old.",
	"Nobody remembered why the limit was 500; it turned out to be the size of the first import.",
	"Moving the validation to the edge made the core simpler and the error messages clearer.",
	"The queue absorbs the bursts, but the consumer still has to keep up on average.",
];

// label, share, folder, key field, relations: [type, target label, how many]
const KINDS = [
	{ label: "Project", share: 0.05, folder: "Projects", key: "name", props: ["status", "repo", "stack"], rel: [["USES", "Technology", 3], ["APPLIES", "Concept", 2], ["INVOLVES", "Person", 2], ["FOR", "Client", 1], ["IN_DOMAIN", "Domain", 1]] },
	{ label: "Problem", share: 0.1, folder: "Problems", key: "title", props: ["status", "severity"], rel: [["BELONGS_TO", "Project", 1], ["APPLIES", "Concept", 1], ["SOLVED_BY", "Decision", 1], ["USES", "Technology", 1]] },
	{ label: "Decision", share: 0.08, folder: "Decisions", key: "title", props: ["status", "rationale", "date"], rel: [["BELONGS_TO", "Project", 1], ["USES", "Technology", 1], ["APPLIES", "Concept", 1]] },
	{ label: "Concept", share: 0.15, folder: "Concepts", key: "name", props: ["domain"], rel: [["SIMILAR_TO", "Concept", 1], ["IN_DOMAIN", "Domain", 1]] },
	{ label: "Technology", share: 0.1, folder: "Technologies", key: "name", props: ["version", "type"], rel: [["IMPLEMENTS", "Concept", 1], ["DEPENDS_ON", "Technology", 1]] },
	{ label: "Person", share: 0.07, folder: "People", key: "name", props: ["role", "organisation"], rel: [["BELONGS_TO", "Client", 1]] },
	{ label: "Client", share: 0.02, folder: "Clients", key: "name", props: ["sector", "status"], rel: [] },
	{ label: "Domain", share: 0.01, folder: "Domains", key: "name", props: [], rel: [] },
	{ label: null, share: 0.42, folder: "Daily", key: null, props: [], rel: [] },
];

const notes = Number(arg("notes", "1000"));
const out = arg("out", `/tmp/engrama-vault-${notes}`);
const rand = mulberry32(Number(arg("seed", "1")));
const withIds = process.argv.includes("--with-ids");
const pick = (list) => list[Math.floor(rand() * list.length)];
const capital = (word) => word[0].toUpperCase() + word.slice(1);
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

function uuid() {
	const hex = [...Array(32)].map(() => Math.floor(rand() * 16).toString(16));
	hex[12] = "4";
	hex[16] = ((parseInt(hex[16], 16) & 3) | 8).toString(16);
	const s = hex.join("");
	return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

// Plan every note first so relations and links can point at real names.
const planned = [];
const byLabel = new Map();
let n = 0;
for (const kind of KINDS) {
	const count = kind === KINDS[KINDS.length - 1] ? notes - n : Math.max(1, Math.round(notes * kind.share));
	for (let i = 0; i < count && n < notes; i++, n++) {
		let name;
		let folder = kind.folder;
		if (kind.label === null) {
			const variant = i % 3;
			const day = new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
			if (variant === 0) {
				name = `${day} daily ${i}`;
				folder = `Daily/${day.slice(0, 4)}/${day.slice(5, 7)}`;
			} else if (variant === 1) {
				name = `${day} meeting ${pick(WORDS)} ${i}`;
				folder = "Meetings";
			} else {
				name = `Reading ${pick(WORDS)} ${pick(TOPICS)} ${i}`;
				folder = "Reading";
			}
		} else if (kind.key === "title") {
			name = `${pick(VERBS)} ${pick(WORDS)} ${pick(TOPICS)} ${kind.label.toLowerCase()} ${i}`;
			name = name[0].toUpperCase() + name.slice(1);
		} else {
			name = `${capital(pick(WORDS))} ${pick(WORDS)} ${i}`;
		}
		const note = { kind, name, folder, path: `${folder}/${name}.md` };
		planned.push(note);
		if (kind.label) {
			if (!byLabel.has(kind.label)) byLabel.set(kind.label, []);
			byLabel.get(kind.label).push(note);
		}
	}
}

// Names that links and relations point at without a note: stubs, shared by many notes.
const UNWRITTEN = Array.from({ length: Math.max(10, Math.round(notes / 20)) }, (_, i) => `Unwritten ${pick(WORDS)} ${i}`);
const STUBS = Array.from({ length: Math.max(10, Math.round(notes / 40)) }, (_, i) => `${capital(pick(WORDS))} stub ${i}`);

function paragraph() {
	const sentences = [];
	for (let i = int(2, 5); i > 0; i--) sentences.push(pick(SENTENCES));
	return sentences.join(" ");
}

function link() {
	// Unresolved links repeat (ideas not written yet), as they do in real vaults.
	if (rand() < 0.1) return `[[${pick(UNWRITTEN)}]]`;
	const target = pick(planned);
	const r = rand();
	if (r < 0.15) return `[[${target.name}|${pick(WORDS)}]]`;
	if (r < 0.25) return `[[${target.name}#Notes]]`;
	return `[[${target.name}]]`;
}

function yamlString(s) {
	return /[:#[\]{},&*!|>'"%@`]/.test(s) || /^\s|\s$/.test(s) ? JSON.stringify(s) : s;
}

function render(note) {
	const { kind } = note;
	const lines = ["---"];
	if (withIds) lines.push(`engrama_id: ${uuid()}`);
	if (kind.label) {
		lines.push(`engrama_label: ${kind.label}`);
		lines.push(`${kind.key}: ${yamlString(note.name)}`);
		for (const prop of kind.props) {
			const value =
				prop === "status" ? pick(kind.label === "Problem" ? ["open", "resolved", "in progress", "fixed"] : ["active", "done", "wip"])
				: prop === "date" ? `2025-${String(int(1, 12)).padStart(2, "0")}-${String(int(1, 28)).padStart(2, "0")}`
				: prop === "version" ? String(int(1, 20))
				: `${pick(WORDS)} ${pick(WORDS)}`;
			lines.push(`${prop}: ${yamlString(value)}`);
		}
	}
	lines.push(`tags: [${[pick(TOPICS), pick(TOPICS)].filter((t, i, a) => a.indexOf(t) === i).join(", ")}]`);
	if (kind.rel.length > 0) {
		lines.push("relations:");
		for (const [type, target, count] of kind.rel) {
			const pool = byLabel.get(target) ?? [];
			const targets = [];
			for (let i = int(1, count); i > 0; i--) {
				if (rand() < 0.08 || pool.length === 0) targets.push(pick(STUBS));
				else {
					const t = pick(pool);
					if (t !== note) targets.push(rand() < 0.5 ? `"[[${t.name}]]"` : yamlString(t.name));
				}
			}
			if (targets.length > 0) lines.push(`  ${type}: [${[...new Set(targets)].join(", ")}]`);
		}
	}
	lines.push("---");
	lines.push(kind.label ? `# ${note.name}` : "");
	lines.push("");
	lines.push(`> ${pick(SENTENCES)}`);
	lines.push("");
	const size = int(500, 4000);
	let body = "";
	while (body.length < size) {
		const r = rand();
		if (r < 0.6) body += `${paragraph()} See ${link()}${rand() < 0.4 ? ` and ${link()}` : ""}. #${pick(TOPICS)}\n\n`;
		else if (r < 0.75) body += `## ${pick(["Notes", "Context", "Next steps", "Log"])}\n\n`;
		else if (r < 0.9) body += `- ${paragraph().slice(0, 80)}\n- [ ] follow up with ${link()}\n- ${pick(SENTENCES)}\n\n`;
		else body += "```ts\nconst x = retry(() => fetch(url), { times: 3 }); // #not-a-tag [[not a link]]\n```\n\n";
	}
	lines.push(body);
	return lines.join("\n");
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, ".obsidian"), { recursive: true });
writeFileSync(join(out, ".obsidian", "app.json"), "{}\n");
const folders = new Set();
let bytes = 0;
for (const note of planned) {
	const dir = join(out, note.folder);
	if (!folders.has(dir)) {
		mkdirSync(dir, { recursive: true });
		folders.add(dir);
	}
	const text = render(note);
	bytes += Buffer.byteLength(text);
	writeFileSync(join(out, note.path), text);
}
process.stdout.write(`${JSON.stringify({ out, notes: planned.length, folders: folders.size, bytes, withIds })}\n`);
