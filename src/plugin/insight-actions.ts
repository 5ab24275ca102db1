import type { InsightStatus, InsightView, ReflectReport, WriteContext, WriteInsightResult } from "../engine";
import type { Engine } from "./engine-host";

/** Writes from the plugin's UI are the person's own, made in their vault: full trust, like sync. */
export function personContext(engine: Engine): WriteContext {
	return { scope: engine.scope, source: "sync", agent: "obsidian" };
}

export function insightsWithStatus(engine: Engine, status: InsightStatus, limit = 100): Promise<InsightView[]> {
	return engine.skills.insights(engine.scope, { status, limit });
}

export function runReflect(engine: Engine): Promise<ReflectReport> {
	return engine.skills.reflect(personContext(engine));
}

export async function approveInsight(engine: Engine, title: string, reason?: string): Promise<InsightView> {
	return (await engine.skills.reviewInsight(personContext(engine), title, "approved", reason)).insight;
}

export async function dismissInsight(engine: Engine, title: string, reason?: string): Promise<InsightView> {
	return (await engine.skills.reviewInsight(personContext(engine), title, "dismissed", reason)).insight;
}

/** Where an approved Insight goes: appended to an existing note, or a note of its own in `folder`. */
export type InsightTarget = { readonly kind: "append"; readonly path: string } | { readonly kind: "create"; readonly folder: string };

/** Writes an approved Insight into a note through the vault (links to the entities' notes). */
export function writeInsightToNote(engine: Engine, title: string, target: InsightTarget): Promise<WriteInsightResult> {
	const options = target.kind === "append" ? { note: target.path } : { folder: target.folder };
	return engine.skills.writeInsightToNote(personContext(engine), engine.source, title, options);
}
