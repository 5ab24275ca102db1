import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../src/engine/errors";
import { LIMITS, cleanString, readConfidence, readDate, sanitiseKey, sanitiseProps } from "../../../src/engine/write/sanitise";

describe("sanitiser", () => {
	it("trims keys, collapses whitespace and strips control characters", () => {
		expect(sanitiseKey("  Billing\t\u0007 Portal \n", "name")).toBe("Billing Portal");
		expect(cleanString("a\u0000b\u001Fc\nd")).toBe("abc\nd");
	});

	it("refuses keys without letters or digits, oversize keys and non-strings, saying why", () => {
		expect(() => sanitiseKey(" ?! -- ", "name")).toThrow(/no letters or digits/);
		expect(() => sanitiseKey("x".repeat(LIMITS.keyLength + 1), "title")).toThrow(/limit is 500/);
		expect(() => sanitiseKey(42, "name")).toThrow(ValidationError);
	});

	it("keeps scalars and flat lists, drops engine-owned props", () => {
		expect(
			sanitiseProps({ description: "ok", count: 3, done: false, tags: ["a", null, 2], engrama_id: "forged", org_id: "other", source: "x" }),
		).toEqual({ description: "ok", count: 3, done: false, tags: ["a", 2] });
	});

	it("refuses nested objects, non-finite numbers, bad names and oversize text with the property named", () => {
		expect(() => sanitiseProps({ meta: { a: 1 } })).toThrow(/"meta".*unsupported/);
		expect(() => sanitiseProps({ n: Number.NaN })).toThrow(/"n" must be a finite number/);
		expect(() => sanitiseProps({ "bad name": 1 })).toThrow(/not allowed/);
		expect(() => sanitiseProps({ "x'); DROP TABLE nodes;--": 1 })).toThrow(ValidationError);
		expect(() => sanitiseProps({ body: "x".repeat(LIMITS.stringLength + 1) })).toThrow(/"body" is 200001 characters/);
		expect(() => sanitiseProps({ tags: Array.from({ length: LIMITS.listItems + 1 }, () => "t") })).toThrow(/items/);
		expect(() => sanitiseProps([1, 2])).toThrow(/object/);
	});

	it("validates confidence and dates", () => {
		expect(readConfidence(0.4)).toBe(0.4);
		expect(() => readConfidence(1.5)).toThrow(/between 0 and 1/);
		expect(readDate("valid_to", "2026-01-02")).toBe("2026-01-02T00:00:00.000Z");
		expect(readDate("valid_to", null)).toBeNull();
		expect(() => readDate("valid_from", "yesterday-ish")).toThrow(/ISO date/);
	});
});
