/** Time and ids are injected so tests can pin them. */
export interface Clock {
	now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function newEngramaId(): string {
	return crypto.randomUUID();
}
