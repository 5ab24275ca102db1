// An MCP client writing while a native SQLite program (DB Browser, the sqlite3 shell, Python) has the
// memory file open. On the WASM engine the write is refused with a named error saying what to do,
// reads keep working, and once the program is closed writes work again with nothing lost. On the
// native engine SQLite's own locks share the file: the write goes through, and the reader sees it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { parseConfig } from "../../src/config/engrama-config";
import { HashEmbeddingProvider } from "../../src/engine/embedding/hash-embedding-provider";
import { openMemory } from "../../src/nodejs/open-memory";
import { hold } from "../backends/sqlite/wasm/native-reader";
import { peekNames } from "../backends/sqlite/native/python-peek";
import { makeTempDir } from "../helpers/temp-dir";
import { call, connectClient, ok, startBridge, textOf, type Bridge } from "./mcp-harness";

const TEST_TIMEOUT_MS = 120_000;

describe("MCP writes beside a native SQLite reader (WASM engine)", () => {
	const dir = makeTempDir("engrama-mcp-foreign-");
	let bridge: Bridge;
	let client: Client;
	beforeAll(async () => {
		bridge = await startBridge({ dir: dir.path, sqliteEngine: "wasm" });
		client = await connectClient(bridge.url, bridge.token);
	}, TEST_TIMEOUT_MS);
	afterAll(async () => {
		await client?.close();
		await bridge?.close();
		dir.cleanup();
	});

	const remember = (title: string) => call(client, "engrama_remember", { label: "Decision", properties: { title, summary: `${title}, decided.` } });

	it("refuses with database_in_use while the reader is open, then writes again", async () => {
		expect((await remember("Before the reader")).isError).toBeFalsy();
		const reader = await hold(bridge.opened.config.dbPath);
		let refused;
		try {
			refused = await remember("While the reader is open");
			const found = await ok<{ results: { name: string }[] }>(client, "engrama_search", { query: "Before the reader" });
			expect(found.results.map((r) => r.name)).toContain("Before the reader");
		} finally {
			await reader.close();
		}
		expect(refused.isError).toBe(true);
		expect(refused.content).toHaveLength(1);
		expect(JSON.parse(textOf(refused).split("\n").at(-1) ?? "{}")).toMatchObject({ error: { code: "database_in_use" } });
		expect(textOf(refused)).toMatch(/Another program .* has .*memory\.db open/);
		expect(textOf(refused)).toMatch(/The write was not stored and nothing stored was lost\. Close that program and retry/);

		const after = await remember("After the reader");
		expect(after.isError, textOf(after)).toBeFalsy();
		await client.close();
		await bridge.close();

		const reopened = await openMemory(parseConfig({ backend: "sqlite", dbPath: bridge.opened.config.dbPath, profile: "base", modules: [] }), {
			embedder: new HashEmbeddingProvider(64),
		});
		try {
			const names = ["Before the reader", "While the reader is open", "After the reader"];
			const present = await Promise.all(names.map((name) => reopened.memory.get(reopened.scope, "Decision", name)));
			expect(present.map((node) => Boolean(node))).toEqual([true, false, true]);
		} finally {
			await reopened.close();
		}
	}, TEST_TIMEOUT_MS);
});

describe("MCP writes beside a native SQLite reader (native engine)", () => {
	const dir = makeTempDir("engrama-mcp-foreign-native-");
	let bridge: Bridge;
	let client: Client;
	beforeAll(async () => {
		bridge = await startBridge({ dir: dir.path, sqliteEngine: "native" });
		client = await connectClient(bridge.url, bridge.token);
	}, TEST_TIMEOUT_MS);
	afterAll(async () => {
		await client?.close();
		await bridge?.close();
		dir.cleanup();
	});

	const remember = (title: string) => call(client, "engrama_remember", { label: "Decision", properties: { title, summary: `${title}, decided.` } });

	it("writes while the reader is open, the reader's next read sees the write, nothing is lost after both close", async () => {
		expect((await remember("Before the reader")).isError).toBeFalsy();
		const dbPath = bridge.opened.config.dbPath;
		const reader = await hold(dbPath);
		try {
			const during = await remember("While the reader is open");
			expect(during.isError, textOf(during)).toBeFalsy();
			// A second program reading now (through the shared WAL index) sees the committed write.
			expect(peekNames(dbPath)).toEqual(expect.arrayContaining(["Before the reader", "While the reader is open"]));
		} finally {
			await reader.close();
		}
		expect((await remember("After the reader")).isError).toBeFalsy();
		await client.close();
		await bridge.close();

		const reopened = await openMemory(parseConfig({ backend: "sqlite", sqliteEngine: "wasm", dbPath, profile: "base", modules: [] }), {
			embedder: new HashEmbeddingProvider(64),
		});
		try {
			const names = ["Before the reader", "While the reader is open", "After the reader"];
			const present = await Promise.all(names.map((name) => reopened.memory.get(reopened.scope, "Decision", name)));
			expect(present.map((node) => Boolean(node))).toEqual([true, true, true]);
		} finally {
			await reopened.close();
		}
	}, TEST_TIMEOUT_MS);
});
