import { ROLE_METHOD_NAMES, type GraphStore, type RoleMethod } from "../engine/backend-kit";

/** A role method as a backend module writes it: the store's context first, then the method's own arguments; sync or async. */
type RoleFunction<C, K extends RoleMethod> = NonNullable<GraphStore[K]> extends (...args: infer A) => infer R ? (ctx: C, ...args: A) => R | Awaited<R> : never;

/** What a backend's role modules supply: every required role method, and the optional ones it serves. */
export type RoleImplementation<C> = { [K in RoleMethod as undefined extends GraphStore[K] ? never : K]: RoleFunction<C, K> } & {
	[K in RoleMethod as undefined extends GraphStore[K] ? K : never]?: RoleFunction<C, K>;
};

/** The store methods a facade built by `roleFacade` has: the optional ones its backend serves are there for sure. */
export type RoleMethods<I> = Pick<GraphStore, RoleMethod> & { [K in RoleMethod & keyof I]-?: NonNullable<GraphStore[K]> };

/**
 * A base class whose methods forward, in ROLE_METHODS order, to the backend's role modules with
 * the context given to its constructor. An optional method the backend does not serve stays
 * absent, so callers see the same `store.method?.()` they would on a hand-written class. Every
 * method answers a promise: a role function that throws synchronously rejects instead.
 */
export function roleFacade<C, I extends RoleImplementation<C>>(implementation: I): abstract new (ctx: C) => RoleMethods<I> {
	const functions = implementation as Partial<Record<RoleMethod, (ctx: C, ...args: unknown[]) => unknown>>;
	// A property, not a WeakMap keyed by `this`: a Proxy around the store (the writer guard, a test's
	// recorder) calls its methods with the proxy as `this`, and reads the property through it.
	const context = Symbol("role context");
	abstract class Facade {
		readonly [context]: C;
		constructor(ctx: C) {
			this[context] = ctx;
		}
	}
	for (const method of ROLE_METHOD_NAMES) {
		const fn = functions[method];
		if (!fn) continue;
		Object.defineProperty(Facade.prototype, method, {
			configurable: true,
			writable: true,
			value(this: Facade, ...args: unknown[]): Promise<unknown> {
				try {
					return Promise.resolve(fn(this[context], ...args));
				} catch (error) {
					return Promise.reject(error instanceof Error ? error : new Error(String(error)));
				}
			},
		});
	}
	return Facade as unknown as abstract new (ctx: C) => RoleMethods<I>;
}
