import { describe, expect, it } from "vitest";
import { JSON_MARKER, decodeName, decodeProps, encodeName, encodeProps, encodeValue } from "../../../src/backends/neo4j/props-codec";
import type { Props } from "../../../src/engine/types";

// What Neo4j can hold as a property value: a scalar or a list of one scalar type.
function storable(value: unknown): boolean {
	if (value === null) return false;
	if (["string", "number", "boolean"].includes(typeof value)) return true;
	if (!Array.isArray(value)) return false;
	return value.length === 0 || value.every((v) => typeof v === typeof value[0] && ["string", "number", "boolean"].includes(typeof v));
}

describe("Neo4j props codec", () => {
	const samples: Props = {
		text: "plain",
		empty: "",
		integer: 3,
		float: 0.85,
		negative: -2.5,
		yes: true,
		no: false,
		tags: ["a", "b"],
		numbers: [1, 2.5],
		flags: [true, false],
		nothing: [],
		missing: null,
		mixed: ["a", 1, true],
		nested: [["x"], ["y", "z"]],
		map: { a: 1, b: { c: [null, "d"] } },
		lookalike: `${JSON_MARKER}{"not":"json"}`,
		listLookalike: ["ok", `${JSON_MARKER}1`],
		unicode: "Añadir café ☕ 𝄞",
		embedding: "a user prop named like the vector",
		__secret: "a user prop named like an internal one",
		__p_huh: "already escaped-looking",
		__user: "looks like an internal edge prop",
	};

	it("encodes every value into something Neo4j can store", () => {
		for (const value of Object.values(encodeProps(samples))) expect(storable(value), JSON.stringify(value)).toBe(true);
	});

	it("round-trips every JSON-compatible value exactly", () => {
		expect(decodeProps(encodeProps(samples))).toEqual(samples);
	});

	it("keeps plain values native so Cypher can filter on them", () => {
		expect(encodeValue("active")).toBe("active");
		expect(encodeValue(0.5)).toBe(0.5);
		expect(encodeValue(["x", "y"])).toEqual(["x", "y"]);
		expect(encodeValue(null)).toBe(`${JSON_MARKER}null`);
	});

	it("escapes reserved names and hides internal ones", () => {
		expect(encodeName("embedding")).toBe("__p_embedding");
		expect(encodeName("__ns")).toBe("__p___ns");
		expect(encodeName("status")).toBe("status");
		expect(decodeName("__ns")).toBeNull();
		expect(decodeName("__ft_name")).toBeNull();
		expect(decodeName("embedding")).toBeNull();
		expect(decodeName("created_at")).toBeNull();
		expect(decodeName("__p_created_at")).toBe("created_at");
		expect(decodeName("__user")).toBeNull();
	});

	it("maps unset names to null (which SET += removes) and drops nulls when reading", () => {
		expect(encodeProps({ a: 1 }, ["b", "embedding"])).toEqual({ a: 1, b: null, __p_embedding: null });
		expect(decodeProps({ a: 1, b: null, __key: "k", __seq: 5 })).toEqual({ a: 1 });
	});
});
