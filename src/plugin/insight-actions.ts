import { ValidationError } from "../engine/errors";
import { listInsights, reflect, reviewInsight, type InsightStatus, type InsightView, type ReflectReport } from "../engine/reflect";
import type { WriteContext } from "../engine/write/write-pipeline";
import type { Engine } from "./engine-host";

/** Writes from the plugin's UI are the person's own, made in their vault: full trust, like sync. */
export function personContext(engine: Engine): WriteContext {
	return { scope: engine.scope, source: "sync", agent: "obsidian" };
}

export function insightsWithStatus(engine: Engine, status: InsightStatus, limit = 100): Promise<InsightView[]> {
	return listInsights(engine.memory, engine.scope, { status, limit });
}

export function runReflect(engine: Engine): Promise<ReflectReport> {
	return reflect(engine.memory, personContext(engine));
}

export async function approveInsight(engine: Engine, title: string, reason?: string): Promise<InsightView> {
	return (await reviewInsight(engine.memory, personContext(engine), title, "approved", reason)).insight;
}

export async function dismissInsight(engine: Engine, title: string, reason?: string): Promise<InsightView> {
	return (await reviewInsight(engine.memory, personContext(engine), title, "dismissed", reason)).insight;
}

/** Where an approved Insight goes: appended to an existing note, or a new note at `path`. */
export type InsightTarget = { readonly kind: "append"; readonly path: string } | { readonly kind: "create"; readonly path: string };

/** Writes an approved Insight into a note; returns the note's path. */
export function writeInsightToNote(_engine: Engine, _title: string, _target: InsightTarget): Promise<string> {
	return Promise.reject(new ValidationError("Writing Insights into notes is not available in this build yet: the proactive skill has not landed."));
}
