// The built main.js in headless Chromium (Debian's chromium + playwright-core): the side panel and
// the settings tab rendered with styles.css, Approve clicked for real, screenshots for the README.
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeTempDir } from "../helpers/temp-dir";
import { writeTinyModel } from "../nodejs/embedders/tiny-onnx-model";
import { bootBundle } from "./browser/boot-bundle";
import { vaultFiles } from "./browser/vault-files";
import { PLUGIN_DIR, ROOT, buildBundles, manifest } from "./harness";
import { hubRouteAnswer } from "./model-hub-server";
import { requireTool } from "../helpers/system-tools";

// Debian's chromium (README, "What the tests need"); ENGRAMA_CHROMIUM names another Chromium or Chrome.
const CHROMIUM = process.env.ENGRAMA_CHROMIUM;
// Test runs write to .test-out (a clean tree); ENGRAMA_SCREENSHOTS=1 refreshes the README's copies.
const SHOTS = process.env.ENGRAMA_SCREENSHOTS === "1" ? join(ROOT, "docs", "screenshots") : join(ROOT, ".test-out", "screenshots");
// localhost is a secure context (crypto.randomUUID), as Obsidian's app:// origin is; requests never leave the page.
const ORIGIN = "http://localhost:1";

// The local model test's hub: the tiny generated model and the real ONNX Runtime WASM, with Range answers.
const hub = makeTempDir("engrama-browser-hub-");
writeTinyModel(hub.path, "engrama/tiny-encoder");

let browser: Browser;
let page: Page;
/** A new tab with the page and its assets (main.js, styles.css, the model hub) served. */
let openPage: () => Promise<Page>;


const PAGE = `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/obsidian-base.css"><link rel="stylesheet" href="/styles.css"></head>
<body class="theme-dark"><div class="layout"><div class="main-area" id="main"></div><div class="sidebar" id="sidebar"></div></div>
<div class="settings-area" id="settings"></div><script src="/boot.js"></script></body></html>`;

const scene = (expression: string) => page.evaluate(`window.engramaScenes.${expression}`);

beforeAll(async () => {
	const executablePath = CHROMIUM || requireTool("chromium");
	const [{ mainJs }, boot] = await Promise.all([buildBundles(), bootBundle()]);
	const assets: Record<string, { body: string | Buffer; type: string }> = {
		"/": { body: PAGE, type: "text/html" },
		"/boot.js": { body: boot, type: "text/javascript" },
		"/main.js": { body: readFileSync(mainJs), type: "text/javascript" },
		"/styles.css": { body: readFileSync(join(ROOT, "styles.css")), type: "text/css" },
		"/obsidian-base.css": { body: readFileSync(join(__dirname, "browser", "obsidian-base.css")), type: "text/css" },
	};
	browser = await chromium.launch({
		executablePath,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
	});
	openPage = async () => {
		const opened = await browser.newPage({ viewport: { width: 1280, height: 820 }, deviceScaleFactor: 1 });
		await opened.route(`${ORIGIN}/**`, async (route) => {
			const path = new URL(route.request().url()).pathname;
			if (path.startsWith("/hub/")) return route.fulfill(hubRouteAnswer(hub.path, path.slice("/hub".length), route.request().headers().range));
			const asset = assets[path];
			if (!asset) return route.fulfill({ status: 404, body: "not found" });
			return route.fulfill({ status: 200, body: asset.body, contentType: asset.type });
		});
		await opened.goto(`${ORIGIN}/`);
		return opened;
	};
	page = await openPage();
	const errors: string[] = [];
	page.on("pageerror", (error) => errors.push(error.message));
	const files = vaultFiles(join(ROOT, "examples", "vault"));
	files[`${PLUGIN_DIR}/data.json`] = JSON.stringify({ modules: ["teaching"], sync: { debounceMs: 50 } });
	await page.evaluate(
		async ({ files, manifest }) => {
			const main = await (await fetch("/main.js")).text();
			await (window as unknown as { engramaBoot(f: unknown, m: string, man: unknown): Promise<void> }).engramaBoot(files, main, manifest);
		},
		{ files, manifest: manifest() },
	);
	expect(errors).toEqual([]);
	mkdirSync(SHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
	await page?.evaluate("window.engrama && (window.engrama.plugin.unload(), window.engrama.plugin.closed)");
	await browser?.close();
	hub.cleanup();
});

describe("in Chromium", () => {
	test("the Insights tab lists Insights to review; clicking Approve moves one to Approved", async () => {
		await scene(`openNote("Problems/Double-booked appointments on slow networks.md")`);
		await scene("reflect()");
		await scene(`showPanel("Insights")`);
		const cards = page.locator("#sidebar .engrama-insight");
		expect(await cards.count()).toBeGreaterThan(5);
		// styles.css is applied: the selected card has the accent border, buttons are laid out in a row.
		const border = await cards.first().evaluate((el) => getComputedStyle(el).borderTopColor);
		expect(border).not.toBe("rgba(0, 0, 0, 0)");
		expect(await page.locator("#sidebar .engrama-insight-actions").first().evaluate((el) => getComputedStyle(el).display)).toBe("flex");
		await page.locator("#sidebar").screenshot({ path: join(SHOTS, "panel-insights.png") });
		await page.screenshot({ path: join(SHOTS, "obsidian-window.png") });

		const title = await cards.first().getAttribute("data-title");
		await cards.first().locator("button.engrama-approve").click();
		await page.locator(`#sidebar .engrama-insight[data-title="${title}"]`).waitFor({ state: "detached" });
		await page.locator("#sidebar .engrama-segmented button", { hasText: "Approved" }).click();
		const approved = page.locator(`#sidebar .engrama-insight[data-title="${title}"]`);
		await approved.waitFor();
		expect(await approved.locator("button", { hasText: "Write to note" }).count()).toBe(1);
		expect(await approved.locator("button.engrama-approve").count()).toBe(0);
		await page.locator("#sidebar").screenshot({ path: join(SHOTS, "panel-insights-approved.png") });
	});

	test("the Context tab draws the note's neighbourhood as SVG", async () => {
		await scene(`openNote("Projects/Billing Portal.md")`);
		await scene(`showPanel("Context")`);
		await page.locator("#sidebar .engrama-node-name", { hasText: "Billing Portal" }).waitFor();
		const circles = page.locator("#sidebar svg.engrama-graph circle");
		expect(await circles.count()).toBeGreaterThan(5);
		const box = await page.locator("#sidebar svg.engrama-graph").boundingBox();
		expect(box!.width).toBeGreaterThan(250);
		expect(box!.height).toBeGreaterThan(150);
		// With the real font: no two names on the picture overlap.
		const labels = await page.evaluate(() => {
			const texts = Array.from(document.querySelectorAll("#sidebar svg.engrama-graph text"));
			const boxes = texts.map((t) => t.getBoundingClientRect());
			const overlaps: string[] = [];
			boxes.forEach((a, i) =>
				boxes.slice(i + 1).forEach((b, j) => {
					if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps.push(`${texts[i].textContent} / ${texts[i + 1 + j].textContent}`);
				}),
			);
			return { count: texts.length, overlaps, texts: texts.map((t) => t.textContent ?? "") };
		});
		expect(labels.count).toBeGreaterThan(3);
		expect(labels.overlaps).toEqual([]);
		// Names are cut at a word, never to a stub of one ("Stale i…"); the dashed circle is explained.
		expect(labels.texts.filter((t) => /\S{1,3}…$/.test(t) && / \S{1,3}…$/.test(t))).toEqual([]);
		expect(await page.locator("#sidebar .engrama-graph-legend").textContent()).toContain("Dashed: a linked note that does not exist yet.");
		await page.locator("#sidebar").screenshot({ path: join(SHOTS, "panel-context.png") });
	});

	test("a synced note shows its engrama_id among its properties, beside its graph context", async () => {
		await scene(`openNote("Concepts/Idempotency.md")`);
		await scene(`showPanel("Context")`);
		await page.locator("#sidebar .engrama-node-name", { hasText: "Idempotency" }).waitFor();
		const id = page.locator('#main .metadata-property[data-property-key="engrama_id"] .metadata-property-value');
		expect(await id.textContent()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
		await page.screenshot({ path: join(SHOTS, "note-engrama-id.png") });
	});

	test("the Search tab shows live hybrid results", async () => {
		await scene(`search("duplicate payments webhook")`);
		const first = page.locator("#sidebar .engrama-result-row").first();
		expect(await first.locator(".engrama-label-badge").textContent()).toBeTruthy();
		await page.locator("#sidebar").screenshot({ path: join(SHOTS, "panel-search.png") });
	});

	test("the settings tab renders every section", async () => {
		await scene("showSettings()");
		const settings = page.locator("#settings");
		const headings = await settings.locator(".setting-item-heading .setting-item-name").allTextContents();
		expect(headings).toEqual(["Storage", "Embeddings", "Profile and modules", "Sync", "MCP bridge", "Search (advanced)"]);
		await settings.screenshot({ path: join(SHOTS, "settings.png") });
		for (const name of ["panel-insights.png", "panel-insights-approved.png", "panel-context.png", "panel-search.png", "settings.png", "obsidian-window.png", "note-engrama-id.png"]) {
			expect(statSync(join(SHOTS, name)).size).toBeGreaterThan(10_000);
		}
	});

	test("a first run opens the welcome with the dry run's figures, and Start", async () => {
		const first = await openPage();
		const errors: string[] = [];
		first.on("pageerror", (error) => errors.push(error.message));
		try {
			// The example vault as a person brings it: no data.json.
			const files = vaultFiles(join(ROOT, "examples", "vault"));
			await first.evaluate(
				async ({ files, manifest }) => {
					const main = await (await fetch("/main.js")).text();
					await (window as unknown as { engramaBootWelcome(f: unknown, m: string, man: unknown): Promise<void> }).engramaBootWelcome(files, main, manifest);
				},
				{ files, manifest: manifest() },
			);
			const welcome = first.locator("#sidebar .engrama-welcome");
			expect(await welcome.locator(".engrama-welcome-title").textContent()).toBe("Welcome to Engrama");
			expect(await welcome.locator(".engrama-welcome-figures").textContent()).toMatch(/\d+ notes will be indexed/);
			expect(await welcome.locator("button", { hasText: "Start" }).count()).toBe(1);
			await first.locator("#sidebar").screenshot({ path: join(SHOTS, "welcome.png") });
			expect(statSync(join(SHOTS, "welcome.png")).size).toBeGreaterThan(10_000);
			expect(errors).toEqual([]);
		} finally {
			await first.evaluate("window.engrama && (window.engrama.plugin.unload(), window.engrama.plugin.closed)");
			await first.close();
		}
	}, 180_000);

	test("the local embedding model downloads and runs in Chromium (Obsidian's renderer engine)", async () => {
		const result = (await scene(`localModel("${ORIGIN}/hub")`)) as { progress: string[]; state: string; note: string; degraded: boolean; reason?: string; vectorHits: number; status: string; worker: boolean };
		expect(result.state, JSON.stringify(result)).toBe("done");
		expect(result.degraded, JSON.stringify(result)).toBe(false);
		expect(result.progress.some((p) => /^Downloading engrama\/tiny-encoder: ort-wasm-simd-threaded\.wasm [\d,]+ \/ [\d,]+ kB \(file 1 of 5\)$/.test(p))).toBe(true);
		expect(result.note).toBe("local engrama/tiny-encoder");
		expect(result.degraded).toBe(false);
		expect(result.vectorHits).toBeGreaterThan(0);
		expect(result.status).toContain("vectors: engrama/tiny-encoder");
		// Inference ran in ONNX Runtime's proxy worker, off the main thread.
		expect(result.worker).toBe(true);
	}, 180_000);
});
