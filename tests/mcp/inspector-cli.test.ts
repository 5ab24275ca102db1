import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL_NAMES } from "../../src/mcp";
import { runCli } from "../helpers/run-cli";
import { makeTempDir } from "../helpers/temp-dir";
import { spawnServe, type ServeProcess } from "./serve-process";

const run = promisify(execFile);
const ROOT = join(__dirname, "..", "..");
// The inspector's own command (mcp-inspector --cli): CLI mode, no web UI, no browser.
const INSPECTOR = join(ROOT, "node_modules", "@modelcontextprotocol", "inspector", "cli", "build", "cli.js");
const BIN = join(ROOT, "bin", "engrama.mjs");

interface ToolCallOutput {
	readonly content: { type: string; text: string }[];
	readonly structuredContent?: Record<string, unknown>;
	readonly isError?: boolean;
}

async function inspector(config: string, args: readonly string[]): Promise<unknown> {
	const { stdout } = await run(process.execPath, [INSPECTOR, "--cli", "--config", config, "--server", "engrama", ...args], {
		cwd: ROOT,
		timeout: 90_000,
		env: { ...process.env, MCP_AUTO_OPEN_ENABLED: "false", ENGRAMA_DB_PATH: "", VAULT_PATH: "", EMBEDDING_PROVIDER: "" },
	});
	return JSON.parse(stdout) as unknown;
}

describe("@modelcontextprotocol/inspector (CLI mode) against engrama", () => {
	let dir: ReturnType<typeof makeTempDir>;
	let serve: ServeProcess;
	let proxyConfig: string;

	beforeAll(async () => {
		dir = makeTempDir("engrama-inspector-");
		serve = await spawnServe(["--db", join(dir.path, "served.db")]);
		// The stdio-proxy configuration exactly as engrama serve printed it.
		proxyConfig = join(dir.path, "proxy.json");
		writeFileSync(proxyConfig, JSON.stringify((serve.info.configs as unknown as { stdio_proxy: unknown }).stdio_proxy));
	}, 90_000);

	afterAll(async () => {
		serve?.child.kill("SIGTERM");
		await serve?.exited();
		dir?.cleanup();
	});

	it("lists the fourteen tools and calls remember and search through engrama serve (via mcp-proxy)", async () => {
		const list = (await inspector(proxyConfig, ["--method", "tools/list"])) as { tools: { name: string }[] };
		expect(list.tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());

		const remembered = (await inspector(proxyConfig, [
			"--method",
			"tools/call",
			"--tool-name",
			"engrama_remember",
			"--tool-arg",
			"label=Project",
			'properties={"name":"Inspector Project","summary":"Made by the MCP inspector."}',
		])) as ToolCallOutput;
		expect(remembered.isError).toBeFalsy();
		expect(remembered.structuredContent).toMatchObject({ created: true, node: { label: "Project", name: "Inspector Project" } });

		const found = (await inspector(proxyConfig, ["--method", "tools/call", "--tool-name", "engrama_search", "--tool-arg", "query=inspector", "limit=3"])) as ToolCallOutput;
		expect((found.structuredContent?.results as { name: string }[])[0]?.name).toBe("Inspector Project");

		const refused = (await inspector(proxyConfig, ["--method", "tools/call", "--tool-name", "engrama_remember", "--tool-arg", "label=Spaceship", 'properties={"name":"X"}'])) as ToolCallOutput;
		expect(refused.isError).toBe(true);
		expect(refused.content[0].text).toMatch(/Use one of/);
	}, 180_000);

	it("lists and calls tools over stdio with engrama mcp --stdio", async () => {
		const stdioConfig = join(dir.path, "stdio.json");
		writeFileSync(stdioConfig, JSON.stringify({ mcpServers: { engrama: { command: process.execPath, args: [BIN, "--db", join(dir.path, "stdio.db"), "mcp", "--stdio"] } } }));
		const list = (await inspector(stdioConfig, ["--method", "tools/list"])) as { tools: { name: string }[] };
		expect(list.tools).toHaveLength(16);
		const status = (await inspector(stdioConfig, ["--method", "tools/call", "--tool-name", "engrama_status"])) as ToolCallOutput;
		expect(status.structuredContent).toMatchObject({ backend: { name: "sqlite", ok: true }, vault: { configured: false }, embedder: { configured: false } });
	}, 120_000);

	it("engrama mcp --stdio refuses a database the running bridge holds (the database lock applies)", () => {
		const held = runCli(["--db", join(dir.path, "served.db"), "mcp", "--stdio"], { input: "" });
		expect(held.status).not.toBe(0);
		expect(held.stderr).toMatch(/served\.db is already open in process \d+/);
		expect(held.stdout).toBe("");
	}, 90_000);
});
