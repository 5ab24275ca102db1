// Node's timers, for code shared with Obsidian's renderer (host-timers.ts): it uses
// these only where no `window` exists, that is in the command line and in tests.
export const nodeTimers = { setTimeout, clearTimeout, setInterval, clearInterval };
