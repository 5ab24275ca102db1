import { FuzzySuggestModal, type App, type TFile } from "obsidian";

export type NoteChoice = { readonly kind: "file"; readonly file: TFile } | { readonly kind: "create"; readonly path: string };

/** Picks the note an Insight is written into, or offers to create one. */
export class NoteSuggestModal extends FuzzySuggestModal<NoteChoice> {
	constructor(
		app: App,
		private readonly createPath: string,
		private readonly onChoose: (choice: NoteChoice) => void,
	) {
		super(app);
		this.setPlaceholder("Choose the note to append it to, or create a new one");
		this.emptyStateText = "No note matches. Choose the first entry to create a new note.";
	}

	getItems(): NoteChoice[] {
		const files = this.app.vault
			.getMarkdownFiles()
			.slice()
			.sort((a, b) => b.stat.mtime - a.stat.mtime)
			.map((file): NoteChoice => ({ kind: "file", file }));
		return [{ kind: "create", path: this.createPath }, ...files];
	}

	getItemText(item: NoteChoice): string {
		return item.kind === "create" ? `Create a new note: ${item.path}` : item.file.path;
	}

	onChooseItem(item: NoteChoice): void {
		this.onChoose(item);
	}
}

export function chooseNote(app: App, createPath: string): Promise<NoteChoice | null> {
	return new Promise((resolve) => {
		let chosen = false;
		const modal = new NoteSuggestModal(app, createPath, (choice) => {
			chosen = true;
			resolve(choice);
		});
		const close = modal.onClose.bind(modal);
		modal.onClose = () => {
			close();
			// onChooseItem runs after close; let it settle before reporting "cancelled".
			window.setTimeout(() => {
				if (!chosen) resolve(null);
			}, 0);
		};
		modal.open();
	});
}
