// Settings components, Setting and setting tabs, Menu, Keymap, MarkdownRenderer. Part of the one fake of `obsidian`: import it through tests/fakes/obsidian.ts.
import { App, Plugin } from "./app";
import { Component } from "./events";
import { requireApiVersion, setIcon } from "./util";

export class BaseComponent {
	disabled = false;
	then(cb: (component: this) => unknown): this {
		cb(this);
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		return this;
	}
}

/** As in Obsidian, the components that hold a value; each calls `changed` when the user edits it. */
abstract class ValueComponent<T> extends BaseComponent {
	private changeCallback?: (value: T) => unknown;
	abstract getValue(): T;
	abstract setValue(value: T): this;
	registerOptionListener(_listeners: Record<string, (value?: T) => T>, _key: string): this {
		return this;
	}
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
		this.inputEl.addEventListener("input", () => this.onChanged());
	}
	getValue(): string {
		return this.inputEl.value;
	}
	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}
	setPlaceholder(placeholder: string): this {
		this.inputEl.setAttribute("placeholder", placeholder);
		return this;
	}
	override setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.inputEl.disabled = disabled;
		return this;
	}
	onChanged(): void {
		this.changed(this.getValue());
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
	getValue(): boolean {
		return this.value;
	}
	setValue(on: boolean): this {
		this.value = on;
		this.toggleEl.toggleClass("is-enabled", on);
		const box = this.toggleEl.querySelector("input");
		if (box) box.checked = on;
		return this;
	}
	override setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.toggleEl.toggleClass("is-disabled", disabled);
		return this;
	}
	setTooltip(tooltip: string): this {
		this.toggleEl.setAttribute("aria-label", tooltip);
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
	getValue(): string {
		return this.selectEl.value;
	}
	setValue(value: string): this {
		this.selectEl.value = value;
		return this;
	}
	override setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		this.selectEl.disabled = disabled;
		return this;
	}
}

export class SliderComponent extends ValueComponent<number> {
	readonly sliderEl: HTMLInputElement;

	constructor(containerEl: HTMLElement) {
		super();
		this.sliderEl = containerEl.createEl("input", { type: "range", cls: "slider" });
		this.sliderEl.addEventListener("input", () => this.changed(Number(this.sliderEl.value)));
	}
	setLimits(min: number | null, max: number | null, step: number | "any"): this {
		if (min !== null) this.sliderEl.min = String(min);
		if (max !== null) this.sliderEl.max = String(max);
		this.sliderEl.step = String(step);
		return this;
	}
	setDynamicTooltip(): this {
		return this;
	}
	getValue(): number {
		return Number(this.sliderEl.value);
	}
	setValue(value: number): this {
		this.sliderEl.value = String(value);
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
	removeCta(): this {
		this.buttonEl.removeClass("mod-cta");
		return this;
	}
	/** Deprecated in 1.13 for setDestructive; still there. */
	setWarning(): this {
		this.buttonEl.addClass("mod-warning");
		return this;
	}
	/** Since 1.13.0. */
	setDestructive(): this {
		if (!requireApiVersion("1.13.0")) throw new TypeError("button.setDestructive is not a function");
		this.buttonEl.addClass("mod-destructive");
		return this;
	}
	setIcon(icon: string): this {
		setIcon(this.buttonEl, icon);
		return this;
	}
	setTooltip(tooltip: string): this {
		this.buttonEl.setAttribute("aria-label", tooltip);
		return this;
	}
	setClass(cls: string): this {
		this.buttonEl.addClass(cls);
		return this;
	}
	override setDisabled(disabled: boolean): this {
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
 * that is what a plugin keeps in data.json. Here a select lists the names; fakeChoose picks one
 * (creating the secret first when a value is given, as the real component's "new secret" does).
 */
export class SecretComponent extends BaseComponent {
	readonly selectEl: HTMLSelectElement;
	private changed: ((value: string) => unknown) | null = null;

	constructor(
		readonly app: App,
		containerEl: HTMLElement,
	) {
		super();
		this.selectEl = containerEl.createEl("select", { cls: "dropdown secret-component" });
		this.fill("");
		this.selectEl.addEventListener("change", () => void this.changed?.(this.selectEl.value));
	}
	private fill(value: string): void {
		this.selectEl.empty();
		this.selectEl.createEl("option", { text: "Select a secret", attr: { value: "" } });
		for (const id of this.app.secretStorage.listSecrets()) this.selectEl.createEl("option", { text: id, attr: { value: id } });
		this.selectEl.value = value;
	}
	setValue(value: string): this {
		this.fill(value);
		return this;
	}
	onChange(cb: (value: string) => unknown): this {
		this.changed = cb;
		return this;
	}
	/** Test helper: the person picks `id` (and, with `secret`, creates or replaces it first). */
	fakeChoose(id: string, secret?: string): void {
		if (secret !== undefined) this.app.secretStorage.setSecret(id, secret);
		this.fill(id);
		this.selectEl.dispatchEvent(new Event("change"));
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
	readonly components: unknown[] = [];

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
	setTooltip(tooltip: string): this {
		this.nameEl.setAttribute("aria-label", tooltip);
		return this;
	}
	setHeading(): this {
		this.settingEl.addClass("setting-item-heading");
		return this;
	}
	setDisabled(disabled: boolean): this {
		this.settingEl.toggleClass("is-disabled", disabled);
		return this;
	}
	private add<C>(component: C, cb: (component: C) => unknown): this {
		this.components.push(component);
		cb(component);
		return this;
	}
	addText(cb: (component: TextComponent) => unknown): this {
		return this.add(new TextComponent(this.controlEl), cb);
	}
	addTextArea(cb: (component: TextAreaComponent) => unknown): this {
		return this.add(new TextAreaComponent(this.controlEl), cb);
	}
	addSearch(cb: (component: TextComponent) => unknown): this {
		return this.add(new TextComponent(this.controlEl), cb);
	}
	addToggle(cb: (component: ToggleComponent) => unknown): this {
		return this.add(new ToggleComponent(this.controlEl), cb);
	}
	addDropdown(cb: (component: DropdownComponent) => unknown): this {
		return this.add(new DropdownComponent(this.controlEl), cb);
	}
	addSlider(cb: (component: SliderComponent) => unknown): this {
		return this.add(new SliderComponent(this.controlEl), cb);
	}
	addButton(cb: (component: ButtonComponent) => unknown): this {
		return this.add(new ButtonComponent(this.controlEl), cb);
	}
	addExtraButton(cb: (component: ExtraButtonComponent) => unknown): this {
		return this.add(new ExtraButtonComponent(this.controlEl), cb);
	}
	/** Since 1.11.0: the caller builds the component in the control element (SecretComponent needs the App). */
	addComponent<T extends BaseComponent>(cb: (el: HTMLElement) => T): this {
		if (!requireApiVersion("1.11.0")) throw new TypeError("setting.addComponent is not a function");
		this.components.push(cb(this.controlEl));
		return this;
	}
	then(cb: (setting: this) => unknown): this {
		cb(this);
		return this;
	}
}

export abstract class SettingTab {
	readonly app: App;
	readonly containerEl: HTMLElement;

	constructor(app: App) {
		this.app = app;
		this.containerEl = createDiv({ cls: ["vertical-tab-content", "plugin-setting-tab"] });
	}
	abstract display(): void;
	hide(): void {
		this.containerEl.empty();
	}
}

export abstract class PluginSettingTab extends SettingTab {
	constructor(
		app: App,
		readonly plugin: Plugin,
	) {
		super(app);
	}
}

export class Menu extends Component {
	readonly items: { title: string; onClick?: () => unknown }[] = [];
	addItem(cb: (item: { setTitle(t: string): unknown; setIcon(i: string): unknown; onClick(f: () => unknown): unknown }) => unknown): this {
		const entry: { title: string; onClick?: () => unknown } = { title: "" };
		const item = {
			setTitle: (t: string) => ((entry.title = t), item),
			setIcon: () => item,
			onClick: (f: () => unknown) => ((entry.onClick = f), item),
		};
		cb(item);
		this.items.push(entry);
		return this;
	}
	addSeparator(): this {
		return this;
	}
	showAtMouseEvent(_evt: MouseEvent): this {
		return this;
	}
	showAtPosition(_pos: { x: number; y: number }): this {
		return this;
	}
	hide(): this {
		return this;
	}
}

export const Keymap = {
	isModEvent(_evt?: unknown): boolean | string {
		return false;
	},
	isModifier(_evt: unknown, _modifier: string): boolean {
		return false;
	},
};

export class MarkdownRenderer {
	static render(_app: App, markdown: string, el: HTMLElement, _sourcePath: string, _component: Component): Promise<void> {
		el.createDiv({ cls: "markdown-rendered", text: markdown });
		return Promise.resolve();
	}
}
