import { requireApiVersion, type ButtonComponent } from "obsidian";

/**
 * Styles a button as destructive: `setDestructive` from Obsidian 1.13, the same `mod-warning` class
 * that the deprecated `setWarning` sets on older apps (minAppVersion is below 1.13).
 */
export function destructive(button: ButtonComponent): ButtonComponent {
	if (requireApiVersion("1.13.0")) return button.setDestructive();
	button.buttonEl.addClass("mod-warning");
	return button;
}
