import type { Clock } from "../../../src/engine/clock";
import { Memory } from "../../../src/engine/memory";
import type { EmbeddingProvider, GraphStore } from "../../../src/engine/protocols";
import type { ResolverSettings } from "../../../src/engine/resolver";
import { createSkills, type Skills } from "../../../src/engine/skills";
import type { Scope } from "../../../src/engine/types";
import type { WriteContext } from "../../../src/engine/write/write-pipeline";
import type { TestBackend } from "../../contracts/backends";
import { testProfile } from "../../contracts/backends";

/** A clock the test moves by hand. */
export class TestClock implements Clock {
	private current: number;
	constructor(start = "2026-01-01T09:00:00.000Z") {
		this.current = Date.parse(start);
	}
	now(): Date {
		return new Date(this.current);
	}
	advanceDays(days: number): void {
		this.current += days * 86_400_000;
	}
	set(iso: string): void {
		this.current = Date.parse(iso);
	}
}

/**
 * A real, deterministic embedder: bag of words hashed into 64 dimensions, L2-normalised, so texts
 * sharing most words have a cosine near 1 and unrelated texts near 0.
 */
export class BagOfWordsEmbedder implements EmbeddingProvider {
	readonly name = "bag-of-words";
	readonly model = "test-bow-64";
	readonly dimensions = 64;
	async embed(text: string): Promise<Float32Array> {
		const v = new Float32Array(this.dimensions);
		for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
			if (["project", "concept", "technology", "problem", "decision", "tags", "person"].includes(word)) continue;
			let h = 2166136261;
			for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
			v[(h >>> 0) % this.dimensions] += 1;
		}
		const norm = Math.hypot(...v) || 1;
		return v.map((x) => x / norm);
	}
	async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
		return Promise.all(texts.map((t) => this.embed(t)));
	}
	async health() {
		return { ok: true };
	}
}

export interface SkillFixture {
	readonly memory: Memory;
	readonly skills: Skills;
	readonly graph: GraphStore;
	readonly scope: Scope;
	readonly ctx: WriteContext;
	readonly clock: TestClock;
	/** A second tenant in the same memory. */
	readonly otherCtx: WriteContext;
	close(): Promise<void>;
}

export async function openSkillFixture(
	backend: TestBackend,
	options: { resolver?: Partial<ResolverSettings>; embedder?: boolean } = {},
): Promise<SkillFixture> {
	const opened = await backend.open();
	const clock = new TestClock();
	const memory = new Memory({
		graph: opened.stores.graph,
		vectors: opened.stores.vectors,
		embedder: options.embedder ? new BagOfWordsEmbedder() : null,
		profile: testProfile(),
		clock,
	});
	const skills = createSkills(memory, { resolver: options.resolver });
	return {
		memory,
		skills,
		graph: opened.stores.graph,
		scope: opened.scope,
		ctx: { scope: opened.scope, source: "mcp", agent: "test-agent" },
		otherCtx: { scope: { orgId: "acme", userId: "bob" }, source: "mcp" },
		clock,
		close: () => opened.close(),
	};
}
