import { describe, expect, it } from "vitest";
import {
	DEFAULT_RESOLVER_SETTINGS,
	decideTarget,
	lexicalDuplicates,
	normaliseName,
	scoreCandidates,
	type ScoredCandidate,
} from "../../../src/engine/resolver";
import type { NodeRecord } from "../../../src/engine/types";

let seq = 0;
function node(label: string, key: string, props: Record<string, unknown> = {}): NodeRecord {
	seq++;
	return { id: `id-${seq}`, label, keyField: "name", key, props: props as NodeRecord["props"], createdAt: "", updatedAt: "" };
}

function decide(target: string, nodes: NodeRecord[], accept: (label: string) => boolean = () => true) {
	return decideTarget(target, scoreCandidates(normaliseName(target), nodes), accept, DEFAULT_RESOLVER_SETTINGS);
}

describe("decideTarget (the resolver policy)", () => {
	it("exact live match with an acceptable label connects", () => {
		const d = decide("postgres", [node("Technology", "Postgres"), node("Technology", "Postgres XL")]);
		expect(d).toMatchObject({ kind: "connect", match: "exact", candidate: { node: { key: "Postgres" } } });
	});

	it("prefers the requested label over an exact match elsewhere", () => {
		const d = decide("Rust", [node("Concept", "Rust"), node("Technology", "Rust")], (l) => l === "Technology");
		expect(d).toMatchObject({ kind: "connect", candidate: { node: { label: "Technology" } } });
	});

	it("exact only under another label → label_conflict", () => {
		expect(decide("Rust", [node("Concept", "Rust")], (l) => l === "Technology")).toMatchObject({ kind: "label_conflict" });
	});

	it("two same-label nodes with one normalised name: the verbatim key wins, else a conflict", () => {
		const nodes = [node("Technology", "Node-JS"), node("Technology", "node js")];
		expect(decide("node js", nodes)).toMatchObject({ kind: "connect", candidate: { node: { key: "node js" } } });
		expect(decide("NODE_JS", nodes)).toMatchObject({ kind: "label_conflict" });
	});

	it("exact only on an archived node → revive_candidate", () => {
		expect(decide("Flash", [node("Technology", "Flash", { status: "archived" })])).toMatchObject({ kind: "revive_candidate" });
	});

	it("fuzzy ≥ 0.9 beating the runner-up by 0.08 connects; a close runner-up makes it ambiguous", () => {
		expect(decide("kubernetis", [node("Technology", "Kubernetes")])).toMatchObject({ kind: "connect", match: "fuzzy_match" });
		const d = decide("react nativ", [node("Technology", "React Native"), node("Technology", "React Nativo")]);
		expect(d.kind).toBe("ambiguous");
		if (d.kind === "ambiguous") expect(d.didYouMean).toHaveLength(2);
	});

	it("candidates between 0.6 and the connect threshold are offered, at most 5", () => {
		const nodes = ["alpha one", "alpha two", "alpha three", "alpha four", "alpha five", "alpha six"].map((k) => node("Concept", k));
		const d = decide("alpha", nodes);
		expect(d.kind).toBe("ambiguous");
		if (d.kind === "ambiguous") expect(d.didYouMean.length).toBe(5);
	});

	it("nothing ≥ 0.6 → stub, with the label of a weak candidate ≥ 0.5 as a hint", () => {
		expect(decide("Zig", [node("Technology", "Postgres")])).toEqual({ kind: "stub" });
		expect(decide("graphql server api", [node("Technology", "GraphQL")])).toEqual({ kind: "stub", labelHint: "Technology" });
	});

	it("archived and unacceptable nodes never connect by fuzzy match", () => {
		expect(decide("kubernetis", [node("Technology", "Kubernetes", { status: "archived" })]).kind).toBe("stub");
		expect(decide("kubernetis", [node("Concept", "Kubernetes")], (l) => l === "Technology").kind).toBe("stub");
	});

	it("thresholds come from the settings", () => {
		const scored = scoreCandidates("kubernetis", [node("Technology", "Kubernetes")]);
		expect(decideTarget("kubernetis", scored, () => true, { ...DEFAULT_RESOLVER_SETTINGS, connect: 0.95 }).kind).toBe("ambiguous");
		expect(decideTarget("kubernetis", scored, () => true, { ...DEFAULT_RESOLVER_SETTINGS, connect: 0.95, suggest: 0.95 }).kind).toBe("stub");
	});
});

describe("lexicalDuplicates", () => {
	it("names the reason for each finding and leaves the node itself out", () => {
		const self = node("Technology", "Elasticsearch");
		const scored: ScoredCandidate[] = scoreCandidates("elasticsearch", [
			self,
			node("Concept", "ElasticSearch"),
			node("Technology", "Elasticsearch 8"),
			node("Library", "ELASTICSEARCH", { status: "archived" }),
			node("Technology", "Solr"),
		]);
		const found = lexicalDuplicates(scored, { label: "Technology", id: self.id }, DEFAULT_RESOLVER_SETTINGS);
		expect(found.map((f) => [f.node.key, f.reason])).toEqual([
			["ElasticSearch", "label_conflict"],
			["ELASTICSEARCH", "revive_candidate"],
			["Elasticsearch 8", "similar_name"],
		]);
	});
});
