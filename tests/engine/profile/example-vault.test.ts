import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadProfile } from "../../../src/engine/profile";

// Guards examples/README.md: the example vault stays within base + teaching, and the structural
// facts the reflect table relies on (stubs, low-degree nodes, where body links point) stay true.
// This is a deliberately small reading of the vault, not the sync engine.

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const VAULT = join(ROOT, "examples/vault");
const profileText = (file: string) => ({ file, text: readFileSync(join(ROOT, "profiles", file), "utf8") });
const profile = loadProfile([profileText("base.yaml"), profileText("modules/teaching.yaml")]);

interface Note {
	readonly path: string;
	readonly label: string;
	readonly name: string;
	readonly frontmatter: Record<string, unknown>;
	readonly body: string;
}

interface Edge {
	readonly from: string;
	readonly type: string;
	readonly to: string;
}

function markdownFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((entry) => {
		const path = join(dir, entry);
		if (entry.startsWith(".") || entry === "Templates") return [];
		if (statSync(path).isDirectory()) return markdownFiles(path);
		return entry.endsWith(".md") ? [path] : [];
	});
}

function readNote(path: string): Note {
	const text = readFileSync(path, "utf8");
	const match = /^---\n([\s\S]*?)\n---\n?/.exec(text);
	const frontmatter = ((match ? parse(match[1]) : null) ?? {}) as Record<string, string | undefined>;
	const body = match ? text.slice(match[0].length) : text;
	const typeLabel = typeof frontmatter.type === "string" ? profile.resolveLabel(frontmatter.type)?.label : undefined;
	const label: string = frontmatter.engrama_label ?? typeLabel ?? "Note";
	const name = frontmatter.title ?? frontmatter.name ?? /^# (.+)$/m.exec(body)?.[1] ?? basename(path, ".md");
	return { path: relative(VAULT, path), label, name, frontmatter, body };
}

function targetName(target: string): string {
	return target.replace(/^\[\[/, "").replace(/\]\]$/, "").split("|")[0].split("#")[0].trim();
}

const notes = markdownFiles(VAULT).map(readNote);
const byName = new Map(notes.map((n) => [n.name, n]));
const typedEdges: Edge[] = notes.flatMap((n) =>
	Object.entries((n.frontmatter.relations ?? {}) as Record<string, string[]>).flatMap(([type, targets]) => targets.map((t) => ({ from: n.name, type, to: targetName(t) }))),
);
const linkEdges: Edge[] = notes.flatMap((n) => [...n.body.matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => ({ from: n.name, type: "LINKS_TO", to: targetName(m[1]) })));
const stubs = [...new Set(typedEdges.filter((e) => !byName.has(e.to)).map((e) => e.to))].sort();

function neighbours(name: string, edges: readonly Edge[]): Set<string> {
	return new Set(edges.filter((e) => e.from === name || e.to === name).map((e) => (e.from === name ? e.to : e.from)));
}

describe("example vault", () => {
	it("has 60 notes outside Templates/: 48 typed and 12 untyped", () => {
		expect(notes).toHaveLength(60);
		expect(notes.filter((n) => n.label === "Note")).toHaveLength(12);
		expect(new Set(notes.map((n) => n.name)).size).toBe(60);
	});

	it("uses only labels of base + teaching", () => {
		for (const note of notes) expect(profile.resolveLabel(note.label)?.label, note.path).toBe(note.label);
	});

	it("uses only relations the profile allows", () => {
		for (const edge of typedEdges) {
			const from = byName.get(edge.from)?.label ?? "Note";
			const targets = profile.allowedTargets(edge.type, from);
			const to = byName.get(edge.to)?.label;
			if (to === undefined) expect(targets, `${edge.from} ${edge.type} stub ${edge.to}`).toHaveLength(1);
			else expect(profile.isRelationAllowed(edge.type, from, to), `${edge.from} ${edge.type} ${edge.to}`).toBe(true);
		}
	});

	it("normalises every status it uses", () => {
		for (const note of notes.filter((n) => n.frontmatter.status !== undefined)) {
			const result = profile.normaliseStatus(note.label, String(note.frontmatter.status));
			expect(result.note === undefined || note.name === "Stale invoice totals after a plan change", note.path).toBe(true);
		}
	});

	it("has exactly three stubs, one of them a hub", () => {
		expect(stubs).toEqual(["Elena Vidal", "Healthcare", "Outbox Pattern"]);
		expect(stubs.map((s) => neighbours(s, typedEdges).size)).toEqual([3, 2, 2]);
	});

	it("links bodies only to existing notes, never to Concepts or Technologies", () => {
		for (const edge of linkEdges) {
			expect(byName.has(edge.to), `${edge.from} → ${edge.to}`).toBe(true);
			expect(["Concept", "Technology"], `${edge.from} → ${edge.to}`).not.toContain(byName.get(edge.to)?.label);
		}
	});

	it("has exactly three under-connected typed nodes, with or without LINKS_TO", () => {
		const low = (edges: readonly Edge[]) => [...notes.map((n) => n.name), ...stubs].filter((n) => byName.get(n)?.label !== "Note" && neighbours(n, edges).size < 2).sort();
		expect(low(typedEdges)).toEqual(["CRDTs", "Deno", "Pablo Méndez"]);
		expect(low([...typedEdges, ...linkEdges])).toEqual(["CRDTs", "Deno", "Pablo Méndez"]);
		for (const note of notes.filter((n) => n.label === "Note")) expect(neighbours(note.name, linkEdges).size, note.path).toBeGreaterThanOrEqual(2);
	});
});
