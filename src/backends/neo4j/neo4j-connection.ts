import neo4j, { type Driver, type Session, type Transaction } from "neo4j-driver";
import { BackendError, errorMessage } from "../../engine/errors";
import { hostSleep } from "../../platform/host-timers";

export interface Neo4jSettings {
	readonly uri: string;
	readonly username: string;
	/** Empty when the server runs without auth. */
	readonly password: string;
	readonly database: string;
}

/** How long a transient failure (server down, restarting, deadlock) is retried before giving up. */
export interface RetryPolicy {
	/** Total time spent retrying one operation (0 = a single attempt). */
	readonly maxElapsedMs: number;
	readonly initialDelayMs: number;
	readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxElapsedMs: 15_000, initialDelayMs: 100, maxDelayMs: 2_000 };

export type Row = Readonly<Record<string, unknown>>;

/** What store code runs Cypher through: one transaction (a retried unit or the open outer one). */
export interface CypherRunner {
	run(query: string, params?: Readonly<Record<string, unknown>>): Promise<Row[]>;
}

interface OpenTransaction {
	readonly runner: CypherRunner;
}

/**
 * What the connection sent since the last reset: Cypher statements, transactions (BEGIN … COMMIT
 * or ROLLBACK) and the round trips they cost (a statement's RUN + PULL is one, an awaited BEGIN
 * one, a COMMIT or ROLLBACK one). Tests pin these per verb; benchmarks print them.
 */
export interface CypherCounts {
	statements: number;
	transactions: number;
	roundTrips: number;
	/** The first line of each statement, when tracing (`Neo4jConnection.trace`). */
	readonly log: string[];
	/** Each statement whole with its parameters and its time to answer, when tracing "full" (plan checks, write profiles). */
	readonly statementsRun: TracedStatement[];
	/** Milliseconds each COMMIT took to answer, when tracing "full" (where the index updates are paid). */
	readonly commitsMs: number[];
}

export interface TracedStatement {
	readonly query: string;
	readonly params: Readonly<Record<string, unknown>>;
	/** Milliseconds from sending the statement to its last row (set when it answered). */
	ms?: number;
}

function zeroCounts(): CypherCounts {
	return { statements: 0, transactions: 0, roundTrips: 0, log: [], statementsRun: [], commitsMs: [] };
}

const ROLLED_BACK = " The transaction was rolled back: none of its writes were kept.";

const sleep = hostSleep;

function codeOf(error: unknown): string {
	return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : "";
}

/** Transient: the server is unreachable, restarting, or asked us to retry (deadlock, leader switch). */
export function isTransient(error: unknown): boolean {
	const code = codeOf(error);
	// The same transaction would need the same memory again: retrying cannot help.
	if (code === "Neo.TransientError.General.MemoryPoolOutOfMemoryError") return false;
	if (error instanceof Error && neo4j.isRetryableError(error)) return true;
	return isUnreachable(error) || code.startsWith("Neo.TransientError.") || TERMINATED.has(code);
}

/**
 * A transaction the server stopped: a server shutting down stops those in flight (seen as
 * LockClientStopped in a writer's lock wait). The driver does not retry these (an operator may have
 * meant it), but a stopped transaction was rolled back whole and ours are short writes, so running
 * it again is safe; the next attempt meets the restart as an unreachable server, and the retry
 * budget (maxElapsedMs) still bounds a transaction that keeps being stopped.
 */
const TERMINATED = new Set([
	"Neo.ClientError.Transaction.LockClientStopped",
	"Neo.ClientError.Transaction.Terminated",
	"Neo.TransientError.Transaction.LockClientStopped",
	"Neo.TransientError.Transaction.Terminated",
]);

/** The server cannot be reached at all (down, restarting, network), as opposed to refusing one query. */
function isUnreachable(error: unknown): boolean {
	const code = codeOf(error);
	return code === "ServiceUnavailable" || code === "SessionExpired";
}

/**
 * The driver, created on first use, and the retry/transaction rules every query goes through.
 * Failures surface as BackendError naming the server and what to do; a write that could not be
 * done is always reported, never dropped.
 */
export class Neo4jConnection {
	private driver: Driver | undefined;
	private open: OpenTransaction | undefined;
	private closed = false;
	/** Counted since the last `resetCounts()`. */
	counts: CypherCounts = zeroCounts();
	/** Keep each statement's first line in `counts.log` (tests and the count benchmark). */
	trace: boolean | "full" = false;
	/** The last unit of work reached the server (so the next transaction may pipeline its BEGIN). */
	private reachable = false;

	constructor(
		readonly settings: Neo4jSettings,
		readonly retry: RetryPolicy = DEFAULT_RETRY,
	) {}

	/** "bolt://host:port (database neo4j)" for messages. */
	describe(): string {
		return `${this.settings.uri} (database ${this.settings.database})`;
	}

	private getDriver(): Driver {
		if (this.closed) throw new BackendError(`The Neo4j connection to ${this.describe()} is closed. Open the memory again.`);
		if (!this.driver) {
			const { uri, username, password } = this.settings;
			// A server without auth accepts any basic token, so an empty password needs no special case.
			const auth = neo4j.auth.basic(username, password);
			try {
				this.driver = neo4j.driver(uri, auth, {
					disableLosslessIntegers: true,
					// Retries are ours (bounded, reported); the driver makes one attempt.
					maxTransactionRetryTime: 0,
					connectionTimeout: 5_000,
					connectionAcquisitionTimeout: 10_000,
					userAgent: "engrama",
				});
			} catch (error) {
				throw new BackendError(
					`Cannot use NEO4J_URI "${uri}": ${errorMessage(error)}. Use a bolt:// or neo4j:// address such as bolt://localhost:7687.`,
				);
			}
		}
		return this.driver;
	}

	/** Checks the server answers (with retries); used by init and the "test connection" action. */
	async verify(): Promise<void> {
		await this.withRetry("connect", async () => {
			await this.getDriver().verifyConnectivity({ database: this.settings.database });
		});
	}

	/** Starts counting afresh; returns what was counted so far. */
	resetCounts(): CypherCounts {
		const before = this.counts;
		this.counts = zeroCounts();
		return before;
	}

	private readonly count = (query: string, params: Readonly<Record<string, unknown>>): TracedStatement | undefined => this.counted(query, params);

	/** Every statement goes through here, so the counts are complete; returns its trace entry when tracing "full". */
	private counted(query: string, params: Readonly<Record<string, unknown>> = {}): TracedStatement | undefined {
		this.counts.statements++;
		this.counts.roundTrips++;
		if (this.trace) this.counts.log.push(query.trim().split("\n")[0].trim().slice(0, 120));
		if (this.trace !== "full") return undefined;
		const entry: TracedStatement = { query, params };
		this.counts.statementsRun.push(entry);
		return entry;
	}

	/**
	 * The plan the server makes for a statement (EXPLAIN: nothing runs), as "Operator: details"
	 * lines, root first: how tests check that each hot statement seeks an index.
	 */
	async plan(query: string, params: Readonly<Record<string, unknown>> = {}): Promise<string[]> {
		return this.withRetry("explain a statement", async () => {
			const session = this.session("READ");
			try {
				const result = await session.run(`EXPLAIN ${query}`, params);
				const out: string[] = [];
				const walk = (op: PlanNode) => {
					const details = typeof op.arguments?.Details === "string" ? `: ${op.arguments.Details}` : "";
					out.push(`${op.operatorType.replace(/@.*$/, "")}${details}`);
					for (const child of op.children ?? []) walk(child);
				};
				const root = result.summary.plan;
				if (root) walk(root);
				return out;
			} finally {
				await session.close();
			}
		});
	}

	inTransaction(): boolean {
		return this.open !== undefined;
	}

	read<T>(work: (q: CypherRunner) => Promise<T>, what = "read"): Promise<T> {
		return this.unit("READ", work, what);
	}

	write<T>(work: (q: CypherRunner) => Promise<T>, what = "write"): Promise<T> {
		return this.unit("WRITE", work, what);
	}

	/** Schema statements run in their own auto-commit transaction (never inside a data transaction). */
	async schema(query: string, params: Readonly<Record<string, unknown>> = {}): Promise<void> {
		await this.withRetry("create the schema", async () => {
			const session = this.session("WRITE");
			try {
				this.counted(query);
				await session.run(query, params);
			} finally {
				await session.close();
			}
		});
	}

	private session(mode: "READ" | "WRITE"): Session {
		return this.getDriver().session({
			database: this.settings.database,
			defaultAccessMode: mode === "READ" ? neo4j.session.READ : neo4j.session.WRITE,
		});
	}

	private async unit<T>(mode: "READ" | "WRITE", work: (q: CypherRunner) => Promise<T>, what: string): Promise<T> {
		if (this.open) {
			// Inside transaction(): everything joins the open transaction, so reads see its writes.
			try {
				return await work(this.open.runner);
			} catch (error) {
				throw isNeo4jError(error) ? this.failure(what, error, ROLLED_BACK) : error;
			}
		}
		return this.withRetry(what, async () => {
			const session = this.session(mode);
			try {
				// Reads run each statement in its own auto-commit transaction: half the round trips
				// of BEGIN/COMMIT, and the same read-committed view an explicit transaction gives.
				if (mode === "READ") return await work(autoCommitRunner(session, this.count));
				// BEGIN goes out with the first statement (not awaited): a write unit costs its
				// statements and the COMMIT. A failure anywhere retries the whole unit.
				const tx = session.beginTransaction();
				this.counts.transactions++;
				this.counts.roundTrips++;
				try {
					const result = await work(serialRunner(tx, this.count));
					await this.commit(tx);
					return result;
				} catch (error) {
					await tx.rollback().catch(() => undefined);
					throw error;
				}
			} finally {
				await session.close();
			}
		});
	}

	/** Runs `fn` in one explicit transaction: all or nothing. Nested calls join the outer one. */
	async transaction<T>(fn: () => Promise<T>): Promise<T> {
		if (this.open) return fn();
		// While the server answers, BEGIN goes out with the first statement; after it failed to,
		// BEGIN is awaited and retried, so a transaction started during a restart waits it out.
		const pipelined = this.reachable;
		const { session, tx } = await this.withRetry("begin a transaction", async () => {
			const s = this.session("WRITE");
			try {
				const begun = s.beginTransaction();
				if (!pipelined) await begun;
				return { session: s, tx: begun };
			} catch (error) {
				await s.close().catch(() => undefined);
				throw error;
			}
		});
		// The COMMIT or ROLLBACK, and the BEGIN when it was awaited.
		this.counts.transactions++;
		this.counts.roundTrips += pipelined ? 1 : 2;
		this.open = { runner: serialRunner(tx, this.count) };
		try {
			let result: T;
			try {
				result = await fn();
			} finally {
				this.open = undefined;
			}
			await this.commit(tx);
			return result;
		} catch (error) {
			await tx.rollback().catch(() => undefined);
			if (isUnreachable(error) || (error instanceof BackendError && error.details?.transient === true)) this.reachable = false;
			if (error instanceof BackendError || !isNeo4jError(error)) throw error;
			throw this.failure("commit the transaction", error, ROLLED_BACK);
		} finally {
			await session.close().catch(() => undefined);
		}
	}

	private async commit(tx: Transaction): Promise<void> {
		if (this.trace !== "full") return tx.commit();
		const t0 = performance.now();
		await tx.commit();
		this.counts.commitsMs.push(performance.now() - t0);
	}

	/**
	 * PROFILE of a statement in a transaction that is rolled back (a write leaves nothing): its
	 * operators, root first, with rows, db hits and time. For profiling, never on a hot path.
	 */
	async profile(query: string, params: Readonly<Record<string, unknown>> = {}): Promise<ProfiledOperator[]> {
		const session = this.session("WRITE");
		const tx = session.beginTransaction();
		try {
			const result = await tx.run(`PROFILE ${query}`, params);
			const out: ProfiledOperator[] = [];
			const walk = (op: ProfiledPlanNode) => {
				const details = typeof op.arguments?.Details === "string" ? op.arguments.Details : "";
				const time = Number(op.arguments?.Time ?? 0);
				out.push({ operator: op.operatorType.replace(/@.*$/, ""), details, rows: op.rows, dbHits: op.dbHits, timeMs: time / 1e6 });
				for (const child of op.children ?? []) walk(child);
			};
			const root = result.summary.profile;
			if (root) walk(root);
			return out;
		} finally {
			await tx.rollback().catch(() => undefined);
			await session.close();
		}
	}

	async close(): Promise<void> {
		this.closed = true;
		const driver = this.driver;
		this.driver = undefined;
		if (driver) await driver.close();
	}

	private async withRetry<T>(what: string, attempt: () => Promise<T>): Promise<T> {
		const started = Date.now();
		let delay = this.retry.initialDelayMs;
		for (;;) {
			try {
				const result = await attempt();
				this.reachable = true;
				return result;
			} catch (error) {
				// Our own named errors (not found, invalid input) and bugs pass through untouched.
				if (!isNeo4jError(error)) throw error;
				if (isUnreachable(error)) this.reachable = false;
				const elapsed = Date.now() - started;
				if (!isTransient(error) || elapsed + delay > this.retry.maxElapsedMs) throw this.failure(what, error);
				// Jitter keeps several clients from hammering a server that is coming back.
				await sleep(delay * (0.8 + Math.random() * 0.4));
				delay = Math.min(delay * 2, this.retry.maxDelayMs);
			}
		}
	}

	/** A named error that says which server, what failed, and what to do. */
	failure(what: string, error: unknown, tail = ""): BackendError {
		const code = codeOf(error);
		const detail = errorMessage(error).split("\n")[0];
		const where = this.describe();
		if (code === "Neo.ClientError.Security.Unauthorized" || code === "Neo.ClientError.Security.AuthenticationRateLimit") {
			return new BackendError(
				`Neo4j at ${where} refused the credentials of user "${this.settings.username}" (${detail}). Check NEO4J_USERNAME and NEO4J_PASSWORD.${tail}`,
				{ uri: this.settings.uri, code },
			);
		}
		if (code === "Neo.ClientError.Database.DatabaseNotFound") {
			return new BackendError(
				`Neo4j at ${this.settings.uri} has no database "${this.settings.database}". Create it or set NEO4J_DATABASE (Community edition has only "neo4j").${tail}`,
				{ uri: this.settings.uri, code },
			);
		}
		if (code === "Neo.TransientError.General.MemoryPoolOutOfMemoryError") {
			return new BackendError(
				`Neo4j at ${where} ran out of transaction memory, so the ${what} failed (${detail}). Give the server more memory (dbms.memory.transaction.total.max, heap) or do the work in smaller parts.${tail}`,
				{ uri: this.settings.uri, code },
			);
		}
		if (isTransient(error) && !isUnreachable(error)) {
			return new BackendError(
				`Neo4j at ${where} kept refusing to ${what} for ${Math.round(this.retry.maxElapsedMs / 1000)} s (${detail}) [${code}]. Try again; if it persists, check the server's log.${tail}`,
				{ uri: this.settings.uri, code, transient: true },
			);
		}
		if (isUnreachable(error)) {
			return new BackendError(
				`Neo4j at ${where} is unreachable, so the ${what} failed (${detail}); retried for ${Math.round(this.retry.maxElapsedMs / 1000)} s. Start Neo4j or fix NEO4J_URI, then try again.${tail}`,
				{ uri: this.settings.uri, code, transient: true },
			);
		}
		return new BackendError(`Neo4j at ${where} could not ${what}: ${detail}${code ? ` [${code}]` : ""}.${tail}`, {
			uri: this.settings.uri,
			code,
		});
	}
}

function isNeo4jError(error: unknown): boolean {
	return error instanceof Error && error.name === "Neo4jError";
}

function toRows(records: readonly { toObject(): Record<string, unknown> }[]): Row[] {
	return records.map((record) => record.toObject());
}

interface PlanNode {
	readonly operatorType: string;
	readonly arguments?: Readonly<Record<string, unknown>>;
	readonly children?: readonly PlanNode[];
}

export interface ProfiledOperator {
	readonly operator: string;
	readonly details: string;
	readonly rows: number;
	readonly dbHits: number;
	readonly timeMs: number;
}

interface ProfiledPlanNode extends PlanNode {
	readonly rows: number;
	readonly dbHits: number;
	readonly children?: readonly ProfiledPlanNode[];
}

type Counter = (query: string, params: Readonly<Record<string, unknown>>) => TracedStatement | undefined;

/** Runs one statement, timing it into its trace entry when there is one. */
async function timed(entry: TracedStatement | undefined, run: () => Promise<Row[]>): Promise<Row[]> {
	if (!entry) return run();
	const t0 = performance.now();
	const rows = await run();
	entry.ms = performance.now() - t0;
	return rows;
}

function autoCommitRunner(session: Session, count: Counter): CypherRunner {
	return {
		run: async (query, params = {}) => {
			const entry = count(query, params);
			return timed(entry, async () => toRows((await session.run(query, params)).records));
		},
	};
}

/** An explicit transaction runs one query at a time; concurrent callers queue up. */
function serialRunner(tx: Transaction, count: Counter): CypherRunner {
	let tail: Promise<unknown> = Promise.resolve();
	return {
		run(query, params = {}) {
			const next = tail.then(async () => {
				const entry = count(query, params);
				return timed(entry, async () => toRows((await tx.run(query, params)).records));
			});
			tail = next.catch(() => undefined);
			return next;
		},
	};
}
