/** What the panel asks of the command layer (modals, long tasks, opening notes). */
export interface PanelActions {
	reflect(): Promise<void>;
	/** Opens the node's note, at a passage's line when given. */
	openNode(nodeId: string, place?: { readonly line: number }): Promise<void>;
	/** Chooses the target note (or a new one) and writes the approved Insight into it. */
	writeInsight(title: string): Promise<void>;
	/** An optional dismissal reason; null when the person cancelled. */
	askReason(title: string): Promise<string | null>;
	syncCurrentNote(): Promise<void>;
	addRelation(): Promise<void>;
	/** Shows the Insights tab (a search hinted at pending Insights). */
	showInsights(): Promise<void>;
	/** Downloads the local model (progress notice with Cancel), then embeds the nodes without a vector. */
	downloadLocalModel(): Promise<boolean>;
	/** The welcome's choice: downloads the model and only then turns it on (a failed download changes no setting). */
	downloadAndUseLocalModel(model: string): Promise<boolean>;
}
