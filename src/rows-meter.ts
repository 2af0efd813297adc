// Rows written, as Cloudflare bills them, counted by the runtime itself. Durable Object SQLite and
// D1 are billed per row written: every table row and every index entry a statement writes (workerd
// counts each into `SqlStorageCursor.rowsWritten`, D1 into `meta.rows_written`), and each
// `setAlarm()` is billed as one row. With EDGECRON_ROWS_METER = "1" (the bench sets it) every
// statement's count is added up here, per store and per statement, and `GET /__meter/rows` reads
// them (src/index.ts). Off, the wrappers are never made: nothing is counted and nothing is slower.
//
// Under workerd locally the Worker and its Durable Objects share one isolate, so this module's
// tallies see every store at once.

/** One statement's tally: how often it ran and the rows it wrote. */
export interface StatementTally {
  store: string;
  statement: string;
  executions: number;
  rowsWritten: number;
}

export interface RowsMeterSnapshot {
  /** Per store ("shard", "flow-gate", "d1:DB_JOBS_0", ...), the rows written. */
  byStore: Record<string, number>;
  /** setAlarm() calls per Durable Object class: billed one row each. */
  alarmsSet: Record<string, number>;
  /** Every statement that wrote a row, most rows first. */
  statements: StatementTally[];
  /** Rows written in every store plus setAlarm calls: the billed total. */
  totalBilledRows: number;
}

const tallies = new Map<string, StatementTally>();
const alarms = new Map<string, number>();

/** Whether the environment asks for metering (the bench's setting). */
export function rowsMeterOn(env: { EDGECRON_ROWS_METER?: string }): boolean {
  return env.EDGECRON_ROWS_METER === "1";
}

/** The first words of a statement, whitespace collapsed: its name in the tally. */
export function statementLabel(query: string): string {
  const flat = query.replace(/\s+/g, " ").trim();
  return flat.length <= 120 ? flat : `${flat.slice(0, 117)}...`;
}

export function countRows(store: string, query: string, rows: number): void {
  const statement = statementLabel(query);
  const key = `${store}\u0000${statement}`;
  let tally = tallies.get(key);
  if (tally === undefined) {
    tally = { store, statement, executions: 0, rowsWritten: 0 };
    tallies.set(key, tally);
  }
  tally.executions += 1;
  tally.rowsWritten += rows;
}

export function countAlarmSet(store: string): void {
  alarms.set(store, (alarms.get(store) ?? 0) + 1);
}

export function rowsMeterSnapshot({ reset = false }: { reset?: boolean } = {}): RowsMeterSnapshot {
  const statements = [...tallies.values()]
    .filter((tally) => tally.rowsWritten > 0)
    .map((tally) => ({ ...tally }))
    .sort((a, b) => b.rowsWritten - a.rowsWritten);
  const byStore: Record<string, number> = {};
  for (const tally of statements) byStore[tally.store] = (byStore[tally.store] ?? 0) + tally.rowsWritten;
  const alarmsSet = Object.fromEntries(alarms);
  const totalBilledRows =
    Object.values(byStore).reduce((sum, rows) => sum + rows, 0) +
    Object.values(alarmsSet).reduce((sum, count) => sum + count, 0);
  if (reset) {
    tallies.clear();
    alarms.clear();
  }
  return { byStore, alarmsSet, statements, totalBilledRows };
}

/**
 * A Durable Object's SQL storage that counts what each statement writes. workerd makes every
 * change of an INSERT, UPDATE or DELETE (RETURNING included) in the statement's first step, which
 * runs inside exec(); the cursor is read again after it is consumed, for anything later.
 */
export function meteredSql(sql: SqlStorage, store: string): SqlStorage {
  return new Proxy(sql, {
    get(target, property) {
      if (property !== "exec") {
        const value = Reflect.get(target, property);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (query: string, ...bindings: unknown[]) => {
        const cursor = target.exec(query, ...bindings);
        let counted = cursor.rowsWritten;
        if (counted > 0) countRows(store, query, counted);
        const recount = () => {
          const more = cursor.rowsWritten - counted;
          if (more > 0) countRows(store, query, more);
          counted = cursor.rowsWritten;
        };
        return new Proxy(cursor, {
          get(inner, name) {
            const value = Reflect.get(inner, name);
            if (typeof value !== "function") return value;
            if (name === "toArray" || name === "one" || name === "next" || name === "raw") {
              return (...args: unknown[]) => {
                const result = (value as (...a: unknown[]) => unknown).apply(inner, args);
                recount();
                return result;
              };
            }
            return value.bind(inner);
          },
        });
      };
    },
  });
}

type D1Result = { meta?: { rows_written?: number } };

/** The text of every metered statement, so a batch names what it ran. */
const statementQueries = new WeakMap<D1PreparedStatement, string>();

function meteredStatement(statement: D1PreparedStatement, store: string, query: string): D1PreparedStatement {
  const note = <T extends D1Result>(result: T): T => {
    const rows = result.meta?.rows_written ?? 0;
    if (rows > 0) countRows(store, query, rows);
    return result;
  };
  const metered = new Proxy(statement, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      switch (property) {
        case "bind":
          return (...values: unknown[]) => meteredStatement(target.bind(...values), store, query);
        case "run":
        case "all":
          return async (...args: unknown[]) =>
            note(await (value as (...a: unknown[]) => Promise<D1Result>).apply(target, args));
        case "first":
          // first() returns no meta: read the rows through all(), as first() would.
          return async (column?: string) => {
            const result = note(await target.all<Record<string, unknown>>());
            const row = result.results[0] ?? null;
            return column === undefined || row === null ? row : (row[column] ?? null);
          };
        default:
          return value.bind(target);
      }
    },
  });
  statementQueries.set(metered, query);
  rawStatements.set(metered, statement);
  return metered;
}

/** A D1 database whose statements' `meta.rows_written` are counted (batches too). */
export function meteredD1(db: D1Database, store: string): D1Database {
  return new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (property === "prepare") {
        return (query: string) => meteredStatement(target.prepare(query), store, query);
      }
      if (property === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          // The runtime takes only its own statements: unwrap ours (a Proxy is not one).
          const results = await target.batch(statements.map(unwrapStatement));
          results.forEach((result, index) => {
            const rows = result.meta?.rows_written ?? 0;
            const statement = statements[index];
            const query = statement === undefined ? "batch" : (statementQueries.get(statement) ?? "batch");
            if (rows > 0) countRows(store, query, rows);
          });
          return results;
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const rawStatements = new WeakMap<D1PreparedStatement, D1PreparedStatement>();

function unwrapStatement(statement: D1PreparedStatement): D1PreparedStatement {
  return rawStatements.get(statement) ?? statement;
}

const meteredEnvs = new WeakMap<object, object>();

function isD1(value: unknown): value is D1Database {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { prepare?: unknown }).prepare === "function" &&
    typeof (value as { batch?: unknown }).batch === "function" &&
    typeof (value as { dump?: unknown; exec?: unknown }).exec === "function"
  );
}

/** The environment with every D1 binding metered; the same environment when metering is off. */
export function meteredEnv<E extends { EDGECRON_ROWS_METER?: string }>(env: E): E {
  if (!rowsMeterOn(env)) return env;
  const known = meteredEnvs.get(env);
  if (known !== undefined) return known as E;
  const wrapped = new Map<PropertyKey, D1Database>();
  const proxy = new Proxy(env, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (!isD1(value)) return value;
      let metered = wrapped.get(property);
      if (metered === undefined) {
        metered = meteredD1(value, `d1:${String(property)}`);
        wrapped.set(property, metered);
      }
      return metered;
    },
  });
  meteredEnvs.set(env, proxy);
  return proxy;
}
