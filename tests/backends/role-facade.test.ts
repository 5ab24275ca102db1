import { describe, expect, it } from "vitest";
import { NullGraphStore } from "../../src/backends/null/null-graph-store";
import { roleFacade, type RoleImplementation } from "../../src/backends/role-facade";
import { ROLE_METHOD_NAMES, type GraphStore } from "../../src/engine/protocols/graph-store";
import { join } from "node:path";
import { parseConfig } from "../../src/config/engrama-config";
import { createNodeBackend } from "../../src/nodejs/node-backend";
import { makeTempDir } from "../helpers/temp-dir";

async function openSqliteMemoryForTest() {
	const dir = makeTempDir("engrama-facade-");
	const { graph } = await createNodeBackend(parseConfig({ backend: "sqlite", dbPath: join(dir.path, "m.db"), orgId: "o", userId: "u" }));
	return { graph, close: () => graph.close() };
}

describe("roleFacade: the store methods follow from ROLE_METHODS", () => {
	it("every listed method a backend serves forwards with its context; an optional one it does not serve stays absent", async () => {
		const { graph, close } = await openSqliteMemoryForTest();
		try {
			const store = graph as unknown as Record<string, unknown>;
			for (const method of ROLE_METHOD_NAMES) {
				// getNodes is Neo4j's batch; SQLite reads one node at a time (its writeManyPassages is one savepoint).
				expect(typeof store[method], method).toBe(method === "getNodes" ? "undefined" : "function");
			}
			expect(await graph.getMeta("absent")).toBeNull();
		} finally {
			await close();
		}
	});

	it("answers a promise even when the role function throws at once, and works through a Proxy (writer guard, recorders)", async () => {
		type Ctx = { calls: number };
		const ctx: Ctx = { calls: 0 };
		// Two role functions only: the facade binds what the implementation has.
		const partial = {
			getMeta: (c: Ctx, key: string) => {
				c.calls++;
				return key === "x" ? "value" : null;
			},
			setMeta: () => {
				throw new Error("refused");
			},
		};
		const Facade = roleFacade<Ctx, RoleImplementation<Ctx>>(partial as unknown as RoleImplementation<Ctx>);
		class Store extends Facade {}
		const store = new Store(ctx);
		const proxied = new Proxy(store, { get: (target, prop, receiver) => Reflect.get(target, prop, receiver) as unknown });
		expect(await proxied.getMeta("x")).toBe("value");
		expect(ctx.calls).toBe(1);
		const pending = store.setMeta("k", "v");
		expect(pending).toBeInstanceOf(Promise);
		await expect(pending).rejects.toThrow("refused");
	});

	it("builds the null store from the same list: writes echo, reads find nothing", async () => {
		const store: GraphStore = new NullGraphStore();
		const scope = { orgId: "o", userId: "u" };
		expect(await store.getNode(scope, "Project", "x")).toBeNull();
		expect(await store.mergeEdges?.(scope, [])).toEqual({ created: 0 });
		await store.setMeta("k", "v");
		expect(await store.getMeta("k")).toBe("v");
		await expect(store.mergeEdge({ orgId: "", userId: "u" }, { fromId: "a", type: "USES", toId: "b", props: {}, now: "" })).rejects.toThrow();
	});
});
