import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/engrama-config";
import { openMemory } from "../../src/nodejs/open-memory";
import { testProfile } from "../contracts/backends";

describe("null backend", () => {
	it("validates and answers writes like a real backend but stores nothing (dry runs)", async () => {
		const opened = await openMemory(parseConfig({ backend: "null", dbPath: "unused" }), { profile: testProfile() });
		const ctx = { scope: opened.scope, source: "cli" as const };
		const write = await opened.memory.remember(ctx, { label: "project", key: "Dry Run", props: { description: "x" } });
		expect(write).toMatchObject({ created: true, node: { label: "Project", key: "Dry Run" } });
		await expect(opened.memory.remember(ctx, { label: "Nope", key: "x" })).rejects.toThrow(/Unknown label/);
		expect(await opened.memory.get(opened.scope, "Project", "Dry Run")).toBeNull();
		expect((await opened.memory.graph.health()).backend).toBe("null");
		await opened.close();
	});
});
