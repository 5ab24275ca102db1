// Settings components, Setting and the plugin's setting tab. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { type App, type Plugin } from "./app";
import { requireApiVersion, setIcon } from "./util";

export class BaseComponent {
	disabled = false;
}

/** As in Obsidian, the components that hold a value; each calls `changed` when the user edits it. */
abstract class ValueComponent<T> extends BaseComponent {
	private changeCallback?: (value: T) => unknown;
	abstract setValue(value: T): this;
	onChange(callback: (value: T) => unknown): this {
		this.changeCallback = callback;
		return this;
	}
	protected changed(value: T): void {
		void this.changeCallback?.(value);
	}
}

export class TextComponent extends ValueComponent<string> {
	readonly inputEl: HTMLInputElement;

	constructor(containerEl: HTMLElement, tag: "input" | "textarea" = "input") {
		super();
		this.inputEl = containerEl.createEl(tag as "input", tag === "input" ? { type: "text" } : undefined);
		this.inputEl.addEventListener("input", () => this.changed(this.inputEl.value));
	}
	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}
	setPlaceholder(placeholder: string): this {
		this.inputEl.setAttribute("placeholder", placeholder);
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.inputEl.disabled = disabled;
		return this;
	}
}

export class TextAreaComponent extends TextComponent {
	constructor(containerEl: HTMLElement) {
		super(containerEl, "textarea");
	}
}

export class ToggleComponent extends ValueComponent<boolean> {
	readonly toggleEl: HTMLElement;
	private value = false;

	constructor(containerEl: HTMLElement) {
		super();
		this.toggleEl = containerEl.createDiv({ cls: "checkbox-container" });
		this.toggleEl.createEl("input", { type: "checkbox" });
		this.toggleEl.addEventListener("click", () => {
			if (this.disabled) return;
			this.setValue(!this.value);
			this.changed(this.value);
		});
	}
	setValue(on: boolean): this {
		this.value = on;
		this.toggleEl.toggleClass("is-enabled", on);
		const box = this.toggleEl.querySelector("input");
		if (box) box.checked = on;
		return this;
	}
}

export class DropdownComponent extends ValueComponent<string> {
	readonly selectEl: HTMLSelectElement;

	constructor(containerEl: HTMLElement) {
		super();
		this.selectEl = containerEl.createEl("select", { cls: "dropdown" });
		this.selectEl.addEventListener("change", () => this.changed(this.selectEl.value));
	}
	addOption(value: string, display: string): this {
		this.selectEl.createEl("option", { value, text: display });
		return this;
	}
	addOptions(options: Record<string, string>): this {
		for (const [value, display] of Object.entries(options)) this.addOption(value, display);
		return this;
	}
	setValue(value: string): this {
		this.selectEl.value = value;
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.selectEl.disabled = disabled;
		return this;
	}
}

export class ButtonComponent extends BaseComponent {
	readonly buttonEl: HTMLButtonElement;

	constructor(containerEl: HTMLElement) {
		super();
		this.buttonEl = containerEl.createEl("button");
	}
	setButtonText(name: string): this {
		this.buttonEl.setText(name);
		return this;
	}
	setCta(): this {
		this.buttonEl.addClass("mod-cta");
		return this;
	}
	/** Since 1.13.0 (the plugin falls back to setWarning on older apps, which no test plays). */
	setDestructive(): this {
		if (!requireApiVersion("1.13.0")) throw new TypeError("button.setDestructive is not a function");
		this.buttonEl.addClass("mod-destructive");
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.buttonEl.disabled = disabled;
		return this;
	}
	onClick(callback: (evt: MouseEvent) => unknown): this {
		this.buttonEl.addEventListener("click", (evt) => {
			if (!this.disabled) void callback(evt);
		});
		return this;
	}
}

/**
 * Obsidian's SecretComponent (1.11.1; setValue/onChange 1.11.4): picks one of the vault's named
 * secrets on this device (app.secretStorage). Its value is the secret's name, never the secret:
 * that is what a plugin keeps in data.json. Here a select lists the names.
 */
export class SecretComponent extends BaseComponent {
	readonly selectEl: HTMLSelectElement;

	constructor(
		readonly app: App,
		containerEl: HTMLElement,
	) {
		super();
		this.selectEl = containerEl.createEl("select", { cls: "dropdown secret-component" });
		this.setValue("");
	}
	setValue(value: string): this {
		this.selectEl.empty();
		this.selectEl.createEl("option", { text: "Select a secret", attr: { value: "" } });
		for (const id of this.app.secretStorage.listSecrets()) this.selectEl.createEl("option", { text: id, attr: { value: id } });
		this.selectEl.value = value;
		return this;
	}
	onChange(cb: (value: string) => unknown): this {
		this.selectEl.addEventListener("change", () => void cb(this.selectEl.value));
		return this;
	}
}

export class ExtraButtonComponent extends BaseComponent {
	readonly extraSettingsEl: HTMLElement;

	constructor(containerEl: HTMLElement) {
		super();
		this.extraSettingsEl = containerEl.createDiv({ cls: ["clickable-icon", "extra-setting-button"] });
	}
	setIcon(icon: string): this {
		setIcon(this.extraSettingsEl, icon);
		return this;
	}
	setTooltip(tooltip: string): this {
		this.extraSettingsEl.setAttribute("aria-label", tooltip);
		return this;
	}
	onClick(callback: () => unknown): this {
		this.extraSettingsEl.addEventListener("click", () => {
			if (!this.disabled) void callback();
		});
		return this;
	}
}

export class Setting {
	readonly settingEl: HTMLElement;
	readonly infoEl: HTMLElement;
	readonly nameEl: HTMLElement;
	readonly descEl: HTMLElement;
	readonly controlEl: HTMLElement;

	constructor(containerEl: HTMLElement) {
		this.settingEl = containerEl.createDiv({ cls: "setting-item" });
		this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
		this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
		this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
		this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
	}
	setName(name: string | DocumentFragment): this {
		this.nameEl.setText(name);
		return this;
	}
	setDesc(desc: string | DocumentFragment): this {
		this.descEl.setText(desc);
		return this;
	}
	setClass(cls: string): this {
		this.settingEl.addClass(cls);
		return this;
	}
	setHeading(): this {
		this.settingEl.addClass("setting-item-heading");
		return this;
	}
	addText(cb: (component: TextComponent) => unknown): this {
		cb(new TextComponent(this.controlEl));
		return this;
	}
	addTextArea(cb: (component: TextAreaComponent) => unknown): this {
		cb(new TextAreaComponent(this.controlEl));
		return this;
	}
	addToggle(cb: (component: ToggleComponent) => unknown): this {
		cb(new ToggleComponent(this.controlEl));
		return this;
	}
	addDropdown(cb: (component: DropdownComponent) => unknown): this {
		cb(new DropdownComponent(this.controlEl));
		return this;
	}
	addButton(cb: (component: ButtonComponent) => unknown): this {
		cb(new ButtonComponent(this.controlEl));
		return this;
	}
	addExtraButton(cb: (component: ExtraButtonComponent) => unknown): this {
		cb(new ExtraButtonComponent(this.controlEl));
		return this;
	}
	/** Since 1.11.0: the caller builds the component in the control element (SecretComponent needs the App). */
	addComponent<T extends BaseComponent>(cb: (el: HTMLElement) => T): this {
		cb(this.controlEl);
		return this;
	}
}

export abstract class PluginSettingTab {
	readonly containerEl: HTMLElement;

	constructor(
		readonly app: App,
		readonly plugin: Plugin,
	) {
		this.containerEl = createDiv({ cls: ["vertical-tab-content", "plugin-setting-tab"] });
	}
	abstract display(): void;
	hide(): void {
		this.containerEl.empty();
	}
}
