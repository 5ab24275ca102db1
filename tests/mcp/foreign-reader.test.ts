// An MCP client writing while a native SQLite program (DB Browser, the sqlite3 shell, Python) has the
// memory file open. On the WASM engine the write goes through into a log the program never finds
// (it reads the database as of the last checkpoint, and every write once the engine closed). On the
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

	it("writes while the reader is open; the reader sees every write once the engine has closed; nothing is lost", async () => {
		expect((await remember("Before the reader")).isError).toBeFalsy();
		const dbPath = bridge.opened.config.dbPath;
		const reader = await hold(dbPath);
		try {
			const during = await remember("While the reader is open");
			expect(during.isError, textOf(during)).toBeFalsy();
			const found = await ok<{ results: { name: string }[] }>(client, "engrama_search", { query: "Before the reader" });
			expect(found.results.map((r) => r.name)).toContain("Before the reader");
		} finally {
			await reader.close();
		}
		const after = await remember("After the reader");
		expect(after.isError, textOf(after)).toBeFalsy();
		await client.close();
		await bridge.close();

		const names = ["Before the reader", "While the reader is open", "After the reader"];
		// Closing checkpoints the engine's log into the database, which is all a native program reads.
		expect(peekNames(dbPath)).toEqual(expect.arrayContaining(names));
		const reopened = await openMemory(parseConfig({ backend: "sqlite", sqliteEngine: "wasm", dbPath, profile: "base", modules: [] }), {
			embedder: new HashEmbeddingProvider(64),
		});
		try {
			const present = await Promise.all(names.map((name) => reopened.memory.get(reopened.scope, "Decision", name)));
			expect(present.map((node) => Boolean(node))).toEqual([true, true, true]);
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
