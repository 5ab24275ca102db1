export { POLICIES, REFLECT_DETECTORS, type DescribeContext, type DetectorPolicy, type InsightCandidate, type LabelCounts } from "./detectors";
export {
	ABOUT,
	INSIGHT_LABEL,
	INSIGHT_STATUSES,
	insightView,
	listInsights,
	requireInsight,
	reviewInsight,
	type InsightStatus,
	type InsightView,
	type ListInsightsOptions,
	type ReviewResult,
} from "./insights";
export {
	DEFAULT_REFLECT_SETTINGS,
	reflect,
	reflectSettings,
	type DetectorReport,
	type ReflectOptions,
	type ReflectReport,
	type ReflectSettings,
} from "./reflect-engine";
