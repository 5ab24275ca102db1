// The side panel of the built main.js: Insights (reflect, approve, dismiss, write to note), Context, Search.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { loadPlugin, makeVault, manifest, waitFor, type LoadedPlugin, type PluginInstance, type VaultCopy } from "./harness";
import type { Engine } from "../../src/plugin/engine-host";
import { relationHeading } from "../../src/plugin/ui/relation-text";

let h: LoadedPlugin;
let vault: VaultCopy;
let app: ReturnType<LoadedPlugin["fake"]["createFakeApp"]>;
let plugin: PluginInstance;
let panel: HTMLElement;

beforeAll(async () => {
	h = await loadPlugin();
	vault = makeVault({ settings: { modules: ["teaching"], sync: { debounceMs: 30 } } });
	app = h.fake.createFakeApp(vault.path);
	plugin = new h.Plugin(app, manifest());
	await plugin.fakeLoad();
	await app.workspace.fakeLayoutReady();
	const engine = await plugin.controller!.ready();
	await waitFor(() => plugin.controller!.tasks.current === null, "the startup sync");
	await engine.sync.idle();
	expect(app.commands.executeCommandById("engrama:open-panel")).toBe(true);
	const leaf = await waitFor(() => app.workspace.getLeavesOfType("engrama-panel")[0], "the panel");
	panel = leaf.view.containerEl;
});

afterAll(async () => {
	plugin.unload();
	await plugin.closed;
	vault.cleanup();
});

beforeEach(() => h.fake.fakeReset());

function engine(): Engine {
	const e = plugin.controller!.host.engine;
	if (!e) throw new Error("engine not open");
	return e;
}

function buttonIn(root: Element, text: string): HTMLButtonElement {
	const found = Array.from(root.querySelectorAll("button")).find((b) => b.textContent === text);
	if (!found) throw new Error(`No button "${text}" in: ${root.textContent ?? ""}`);
	return found;
}

function tab(name: string): void {
	buttonIn(panel.querySelector(".engrama-tabs")!, name).click();
}

/** Switches the Insights filter and waits for its list (or its empty state). */
async function showStatus(name: string): Promise<void> {
	buttonIn(panel.querySelector(".engrama-segmented")!, name).click();
	await waitFor(
		() => panel.querySelector(".engrama-segmented .is-active")?.textContent === name && !panel.querySelector(".engrama-empty.is-loading"),
		`the ${name} list`,
	);
}

function cards(): HTMLElement[] {
	return Array.from(panel.querySelectorAll<HTMLElement>(".engrama-insight"));
}

function fileText(path: string): string {
	return readFileSync(join(vault.path, path), "utf8");
}

describe("Insights", () => {
	test("empty state says what to do; Reflect now fills the list with explained Insights", async () => {
		await waitFor(() => panel.querySelector(".engrama-empty:not(.is-loading)"), "the empty state");
		expect(panel.querySelector(".engrama-empty")!.textContent).toBe("Nothing to review. Press Reflect now to look for patterns across your notes.");
		buttonIn(panel, "Reflect now").click();
		await waitFor(() => cards().length > 5, "Insight cards");
		const first = cards()[0];
		expect(first.querySelector(".engrama-insight-title")!.textContent.length).toBeGreaterThan(10);
		expect(first.querySelector(".engrama-confidence")!.textContent).toMatch(/^\d+%$/);
		expect(first.querySelector(".engrama-insight-body")!.textContent.length).toBeGreaterThan(20);
		expect(first.querySelectorAll(".engrama-entity-link").length).toBeGreaterThan(0);
		// Highest confidence first: the cross-project solution (85%) leads.
		expect(first.querySelector(".engrama-confidence")!.textContent).toBe("85%");
		expect(first.classList.contains("is-selected")).toBe(true);
	});

	test("an entity link opens that entity's note", async () => {
		const link = Array.from(panel.querySelectorAll<HTMLElement>(".engrama-entity-link")).find((a) => a.textContent === "Idempotency")!;
		link.click();
		await waitFor(() => app.workspace.getActiveFile()?.path === "Concepts/Idempotency.md", "the Idempotency note opened");
	});

	test("Approve from the panel, then write the Insight into an existing note", async () => {
		const card = cards()[0];
		const title = card.querySelector(".engrama-insight-title")!.textContent;
		buttonIn(card, "Approve").click();
		await waitFor(() => !cards().some((c) => c.dataset.title === title), "the card leaving To review");
		const { listInsights } = await import("../../src/engine/reflect");
		const approved = await listInsights(engine().memory, engine().scope, { status: "approved" });
		expect(approved.map((i) => i.title)).toEqual([title]);

		await showStatus("Approved");
		const approvedCard = await waitFor(() => cards().find((c) => c.dataset.title === title), "the approved card");
		expect(() => buttonIn(approvedCard, "Approve")).toThrow();
		buttonIn(approvedCard, "Write to note").click();

		const picker = await waitFor(() => h.fake.fakeOpenModals[h.fake.fakeOpenModals.length - 1] as InstanceType<LoadedPlugin["fake"]["SuggestModal"]> | undefined, "the note picker");
		const items = (await picker.fakeType("Clinic Booking App")) as { item: { kind: string; file?: { path: string } } }[];
		const at = items.findIndex((i) => i.item.kind === "file" && i.item.file?.path === "Projects/Clinic Booking App.md");
		expect(at).toBeGreaterThanOrEqual(0);
		(picker.resultContainerEl.querySelectorAll(".suggestion-item")[at] as HTMLElement).click();
		await waitFor(() => h.fake.fakeNotices.some((n) => n.text.includes("into Projects/Clinic Booking App.md")), "the written notice");
		const text = fileText("Projects/Clinic Booking App.md");
		expect(text).toContain(title);
		expect(text).toContain("[[");
		// The note's own content is still there.
		expect(text).toContain("# Clinic Booking App");
	});

	test("Write to note can create a note of its own", async () => {
		await showStatus("To review");
		const card = await waitFor(() => cards()[0], "a pending card");
		const title = card.dataset.title!;
		buttonIn(card, "Approve").click();
		await waitFor(() => !cards().some((c) => c.dataset.title === title), "approved");
		await showStatus("Approved");
		const approvedCard = await waitFor(() => cards().find((c) => c.dataset.title === title), "the approved card");
		buttonIn(approvedCard, "Write to note").click();
		const picker = await waitFor(() => h.fake.fakeOpenModals[h.fake.fakeOpenModals.length - 1] as InstanceType<LoadedPlugin["fake"]["SuggestModal"]> | undefined, "the note picker");
		await picker.fakeType("");
		const first = picker.resultContainerEl.querySelector<HTMLElement>(".suggestion-item")!;
		expect(first.textContent).toMatch(/^Create a new note: Engrama\/Insights\//);
		first.click();
		const notice = await waitFor(() => h.fake.fakeNotices.find((n) => n.text.includes("into Engrama/Insights/")), "the created notice");
		const path = /into (Engrama\/Insights\/.+\.md)\./.exec(notice.text)![1];
		expect(existsSync(join(vault.path, path))).toBe(true);
		expect(fileText(path)).toContain(title);
	});

	test("Dismiss asks for an optional reason and moves the Insight to Dismissed", async () => {
		await showStatus("To review");
		const card = await waitFor(() => cards()[0], "a pending card");
		const title = card.dataset.title!;
		buttonIn(card, "Dismiss").click();
		const prompt = await waitFor(() => h.fake.fakeOpenModals[h.fake.fakeOpenModals.length - 1], "the reason prompt");
		const input = prompt.contentEl.querySelector("input")!;
		input.value = "Not worth it now";
		input.dispatchEvent(new window.Event("input"));
		buttonIn(prompt.contentEl, "Dismiss").click();
		await waitFor(() => !cards().some((c) => c.dataset.title === title), "the card leaving To review");
		await showStatus("Dismissed");
		const dismissed = await waitFor(() => cards().find((c) => c.dataset.title === title), "the dismissed card");
		expect(dismissed.querySelector(".engrama-insight-reason")!.textContent).toBe("Reason: Not worth it now");
		expect(() => buttonIn(dismissed, "Write to note")).toThrow();
	});
});

describe("Context", () => {
	test("shows the active note's node, its relations by type and direction, and a drawn neighbourhood", async () => {
		await app.workspace.getLeaf(false).openFile(app.vault.getFileByPath("Concepts/Idempotency.md")!);
		tab("Context");
		await waitFor(() => panel.querySelector(".engrama-node-name")?.textContent === "Idempotency", "the Idempotency context");
		expect(panel.querySelector(".engrama-label-badge")!.textContent).toBe("Concept");
		const groups = Array.from(panel.querySelectorAll(".engrama-relation-type")).map((e) => e.textContent);
		// Relation types read as words: incoming COVERS is "Covers this".
		expect(groups).toContain("Applies this");
		expect(groups).toContain("Covers this");
		expect(groups.join(" ")).not.toMatch(/[A-Z]{2,}_|←|→/);
		const nodes = panel.querySelectorAll("svg.engrama-graph .engrama-graph-node");
		expect(nodes.length).toBeGreaterThan(7);
		expect(panel.querySelectorAll("svg.engrama-graph .engrama-graph-node.depth-0")).toHaveLength(1);
		// Clicking a neighbour opens its note; the panel follows the active note.
		const neighbour = Array.from(panel.querySelectorAll<HTMLElement>(".engrama-relations .engrama-entity-link")).find((a) => a.textContent === "Node.js Backend Bootcamp")!;
		neighbour.click();
		await waitFor(() => panel.querySelector(".engrama-node-name")?.textContent === "Node.js Backend Bootcamp", "the panel following the opened note");
	});

	test("lists what skills.context answers (the CLI's and MCP's context), so an archived neighbour is not shown", async () => {
		const e = engine();
		const idempotency = { label: "Concept", name: "Idempotency" };
		const before = (await e.skills.context(e.scope, idempotency))!;
		// A direct neighbour (Exercise -[PRACTICES]-> Idempotency): archive it (a soft forget, as the CLI's forget).
		const gone = before.relations.find((r) => r.direction === "in" && r.from === "Make the payment endpoint idempotent")!;
		expect(gone.type).toBe("PRACTICES");
		await e.skills.forget({ scope: e.scope, source: "sync", agent: "obsidian" }, { label: gone.from_label, name: gone.from });
		await app.workspace.getLeaf(false).openFile(app.vault.getFileByPath("Concepts/Idempotency.md")!);
		tab("Context");
		await waitFor(() => panel.querySelector(".engrama-node-name")?.textContent === "Idempotency", "the Idempotency context");
		const view = app.workspace.getLeavesOfType("engrama-panel")[0].view as unknown as { context: { reload(): Promise<void> } };
		await view.context.reload();
		const shown = Array.from(panel.querySelectorAll(".engrama-relation-group")).flatMap((g) => {
			const heading = g.querySelector(".engrama-relation-type")!.textContent;
			return Array.from(g.querySelectorAll(".engrama-entity-link")).map((a) => `${heading}: ${a.textContent}`);
		});
		expect(shown.some((line) => line.endsWith(`: ${gone.from}`))).toBe(false);
		const after = (await e.skills.context(e.scope, idempotency))!;
		const insights = new Set(after.neighbours.filter((n) => n.label === "Insight").map((n) => n.node_id));
		const expected = after.relations
			.filter((r) => r.direction !== "between" && !insights.has(r.direction === "out" ? r.to_id : r.from_id))
			.map((r) => `${r.direction === "out" ? relationHeading(r.type) : `${relationHeading(r.type)} this`}: ${r.direction === "out" ? r.to : r.from}`);
		expect(shown.sort()).toEqual(expected.sort());
	});

	test("lists the notes related to the active note with the passage that makes each related; a click opens that note at the passage", async () => {
		const e = engine();
		await app.workspace.getLeaf(false).openFile(app.vault.getFileByPath("Concepts/Idempotency.md")!);
		tab("Context");
		const expected = (await e.skills.related(e.scope, { label: "Concept", name: "Idempotency" }))!;
		const names = (found: HTMLElement[]) => found.map((li) => li.querySelector(".engrama-entity-link")!.textContent);
		// The list the earlier test left may still be on screen while the panel reloads: wait for this note's
		// whole list, then hold it to what skills.related answers.
		const items = await waitFor(() => {
			const found = Array.from(panel.querySelectorAll<HTMLElement>(".engrama-related-note"));
			const ready = panel.querySelector(".engrama-node-name")?.textContent === "Idempotency" && found.length === expected.related.length + expected.linked.length;
			return ready ? found : undefined;
		}, "the related notes of Idempotency");
		// Notes not yet linked first, then the linked ones under their own heading.
		expect(expected.linked.length).toBeGreaterThan(0);
		expect(names(items)).toEqual([...expected.related, ...expected.linked].map((r) => r.name));
		const headings = Array.from(panel.querySelectorAll(".engrama-related .engrama-relation-type")).map((h) => h.textContent);
		expect(headings).toEqual(["Related notes", "Already linked"]);
		const lists = panel.querySelectorAll(".engrama-related .engrama-related-list");
		expect(lists[0].querySelectorAll("li")).toHaveLength(expected.related.length);
		expect(expected.related.map((r) => r.name)).not.toContain("Idempotency");
		// The note whose body is about idempotent consumers is there, found by its words (it links here: apart).
		const outbox = expected.linked.find((r) => r.name === "Use an outbox table with idempotent consumers");
		expect(outbox?.reasons).toContain("words");
		const withPassage = items.find((li) => li.querySelector(".engrama-result-passage mark"));
		expect(withPassage, "a related note shows its passage with the words found marked").toBeDefined();
		const name = withPassage!.querySelector(".engrama-entity-link")!.textContent;
		const shown = [...expected.related, ...expected.linked].find((r) => r.name === name)!;
		withPassage!.querySelector<HTMLElement>(".engrama-result-passage")!.click();
		await waitFor(() => app.workspace.getActiveFile()?.path === shown.path, "the related note opened");
	});

	test("says what to do for an excluded note and for a note not yet in the graph", async () => {
		await app.workspace.getLeaf(false).openFile(app.vault.getFileByPath("Templates/Problem.md")!);
		await waitFor(() => panel.querySelector(".engrama-empty")?.textContent?.includes("outside the synced folders"), "the excluded-note message");
		await plugin.controller!.saveSettings((s) => (s.sync.autoSync = false));
		const fresh = await app.vault.create("Scratch.md", "# Scratch\n\nNot synced yet.\n");
		await app.workspace.getLeaf(false).openFile(fresh);
		await waitFor(() => panel.querySelector(".engrama-empty")?.textContent === "This note is not in the graph yet.", "the not-synced message");
		buttonIn(panel, "Sync this note").click();
		await waitFor(() => panel.querySelector(".engrama-node-name")?.textContent === "Scratch", "the note after syncing it");
		await plugin.controller!.saveSettings((s) => (s.sync.autoSync = true));
	});
});

describe("Search", () => {
	test("live results as the person types; a click opens the note", async () => {
		tab("Search");
		expect(panel.querySelector(".engrama-empty")!.textContent).toContain("Type to search");
		const input = panel.querySelector<HTMLInputElement>("input.engrama-search-input")!;
		input.value = "refresh token rotation";
		input.dispatchEvent(new window.Event("input"));
		const row = await waitFor(
			() => Array.from(panel.querySelectorAll<HTMLElement>(".engrama-result-row")).find((r) => r.textContent?.includes("Use refresh token rotation with a grace window")),
			"the Decision in the results",
		);
		expect(row.querySelector(".engrama-label-badge")!.textContent).toBe("Decision");
		expect(row.getAttribute("title")).toMatch(/^Match \d+% of the best result[\s\S]*Found by words/);
		row.click();
		await waitFor(() => app.workspace.getActiveFile()?.path === "Decisions/Use refresh token rotation with a grace window.md", "the note opened");
		input.value = "zzzz qqqq";
		input.dispatchEvent(new window.Event("input"));
		await waitFor(() => panel.querySelector(".engrama-results .engrama-empty")?.textContent?.startsWith("No matching memories"), "the no-results message");

		// A word from a section of a note: the section shows under the result, and opens the note at its line.
		input.value = "proration";
		input.dispatchEvent(new window.Event("input"));
		// Two notes hold the word (Payments and Billing Portal); the section of Billing Portal is among the results.
		const passage = await waitFor(
			() => Array.from(panel.querySelectorAll<HTMLElement>(".engrama-result-passage")).find((p) => p.querySelector(".engrama-result-heading")?.textContent === "Billing Portal > Scope"),
			"a matching section",
		);
		expect(passage.querySelector(".engrama-result-snippet mark")!.textContent).toBe("proration");
		passage.click();
		await waitFor(() => app.workspace.getActiveFile()?.path === "Projects/Billing Portal.md", "the note with the section");
		const lines = (await app.vault.read(app.vault.getFileByPath("Projects/Billing Portal.md")!)).split("\n");
		const opened = (app.workspace.getLeaf(false) as unknown as { openState?: { eState?: { line?: number } } }).openState;
		expect(lines[opened?.eState?.line ?? -1]).toBe("## Scope");

		// Pending Insights about what was searched for are pointed out; the hint leads to them.
		input.value = "Cache Invalidation";
		input.dispatchEvent(new window.Event("input"));
		const hint = await waitFor(() => panel.querySelector<HTMLElement>(".engrama-proactive-hint"), "the proactive hint");
		expect(hint.textContent).toMatch(/Insight/);
		hint.click();
		await waitFor(() => panel.querySelector(".engrama-tab.is-active")?.textContent === "Insights", "the Insights tab");
	});
});

describe("errors", () => {
	test("a memory that cannot open shows an error with what to do, and recovers when fixed", async () => {
		tab("Insights");
		// A folder where the database file should be: opening fails.
		expect(await plugin.controller!.saveSettings((s) => (s.dbPath = "Concepts"))).toBeNull();
		await waitFor(() => plugin.controller!.host.state.kind === "failed", "the failed state");
		await waitFor(() => panel.querySelector(".engrama-empty")?.textContent?.startsWith("Engrama could not open its memory"), "the panel's error");
		expect(app.statusBarEl.textContent).toContain("Engrama: error");
		expect(h.fake.fakeNotices.some((n) => n.text.includes("Check the backend in the Engrama settings"))).toBe(true);
		expect(await plugin.controller!.saveSettings((s) => (s.dbPath = ""))).toBeNull();
		await waitFor(() => plugin.controller!.host.state.kind === "ready", "the reopened memory");
		await waitFor(() => cards().length > 0, "the Insights back");
	});
});
