import { describe, expect, it } from "vitest";
import { indexedNames, nameFragments, normaliseName, queryFragments, similarity, MAX_QUERY_FRAGMENTS } from "../../../src/engine/resolver";

describe("normaliseName", () => {
	it("strips accents, casefolds and reads - and _ as spaces", () => {
		expect(normaliseName("  Café-Au_Lait  ")).toBe("cafe au lait");
		expect(normaliseName("JOSÉ   Núñez")).toBe("jose nunez");
		expect(normaliseName("Straße")).toBe("strasse");
		expect(normaliseName("ﬁle")).toBe("file");
	});

	it("keeps other punctuation so different names stay different", () => {
		expect(normaliseName("C++")).not.toBe(normaliseName("C#"));
		expect(normaliseName("Node.js")).toBe("node.js");
	});
});

describe("fragments", () => {
	it("are the three-character slices of every word; short words are their own fragment", () => {
		expect(nameFragments("ai redis")).toEqual(["ai", "red", "edi", "dis"]);
		expect(nameFragments("go")).toEqual(["go"]);
	});

	it("a long query sends an even spread, capped", () => {
		const long = normaliseName("the quick brown fox jumps over the lazy dog near the riverbank at dawn");
		const picked = queryFragments(long);
		expect(picked.length).toBe(MAX_QUERY_FRAGMENTS);
		expect(picked[0]).toBe("the");
		expect(picked).toContain(nameFragments(long)[Math.floor((nameFragments(long).length / MAX_QUERY_FRAGMENTS) * 23)]);
	});

	it("a node is indexed by its key and its aliases", () => {
		expect(indexedNames("PostgreSQL", { aliases: ["Postgres", "pg", "postgresql"] })).toEqual(["postgresql", "postgres", "pg"]);
		expect(indexedNames("K8s", { aliases: "Kubernetes, kube" })).toEqual(["k8s", "kubernetes", "kube"]);
	});
});

describe("similarity (difflib ratio)", () => {
	it.each([
		["abcd", "bcde", 0.75],
		["python", "pyhton", 0.833],
		["kubernetes", "kubernetis", 0.9],
		["react native", "react nativ", 0.957],
		["", "", 1],
		["abc", "", 0],
	])("ratio(%s, %s) = %s", (a, b, expected) => {
		expect(similarity(a, b)).toBeCloseTo(expected, 3);
	});

	it("is symmetric on names", () => {
		expect(similarity("elasticsearch", "elasticsearch 8")).toBeCloseTo(similarity("elasticsearch 8", "elasticsearch"), 10);
	});
});
