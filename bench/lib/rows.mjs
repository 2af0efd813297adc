// Billed rows written, per scenario, as the product's own meter counts them (src/rows-meter.ts:
// workerd's rowsWritten for Durable Object SQLite, index entries included, D1's meta.rows_written,
// and every setAlarm, which Cloudflare bills as one row). A scenario reads the meter at the
// start of its window and at its end, then asks every shard to prune what the window settled as
// the retention pass will (measured now, not estimated), and divides by the runs it made.
import { ADMIN_TOKEN } from "./runtime.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function meterCall(ctx, path, method = "GET") {
  const res = await fetch(`${ctx.runtime.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${await res.text()}`);
  return res.json();
}

/** The meter's tallies since the last reset; `reset` starts a new window. */
export function readMeter(ctx, { reset = false } = {}) {
  return meterCall(ctx, `/__meter/rows${reset ? "?reset=1" : ""}`);
}

/** Starts a window: whatever was counted before is dropped. */
export async function startRowsWindow(ctx) {
  await readMeter(ctx, { reset: true });
}

/**
 * Waits until nothing more is written (what a window set off may still be writing: outcomes,
 * write-behind, statuses to D1) for `quietMs`, at most `maxMs`; returns the window's tallies.
 */
export async function settleRowsWindow(ctx, { quietMs = 3_000, maxMs = 30_000 } = {}) {
  const deadline = Date.now() + maxMs;
  let last = await readMeter(ctx);
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await sleep(500);
    const now = await readMeter(ctx);
    if (now.totalBilledRows !== last.totalBilledRows) quietSince = Date.now();
    last = now;
    if (Date.now() - quietSince >= quietMs) break;
  }
  return readMeter(ctx, { reset: true });
}

/** What the retention pass will write for what the window settled: pruned now, counted. */
export async function measurePrune(ctx) {
  await startRowsWindow(ctx);
  for (let round = 0; round < 200; round++) {
    const { pruned, historyPruned } = await meterCall(ctx, "/__meter/prune", "POST");
    if (pruned === 0 && historyPruned === 0) break;
  }
  return readMeter(ctx, { reset: true });
}

const round = (value, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The window's and the prune's tallies as the results show them, per run. */
export function rowsReport(runs, window, prune) {
  const perRun = (rows) => (runs > 0 ? round(rows / runs) : null);
  const alarms = (snapshot) => Object.values(snapshot.alarmsSet).reduce((sum, n) => sum + n, 0);
  const statements = [
    ...window.statements.map((s) => ({ ...s, phase: "run" })),
    ...(prune?.statements ?? []).map((s) => ({ ...s, phase: "prune" })),
  ]
    .sort((a, b) => b.rowsWritten - a.rowsWritten)
    .slice(0, 20)
    .map((s) => ({
      phase: s.phase,
      store: s.store,
      statement: s.statement,
      executions: s.executions,
      rows: s.rowsWritten,
      per_run: perRun(s.rowsWritten),
    }));
  const total = window.totalBilledRows + (prune?.totalBilledRows ?? 0);
  return {
    runs,
    // All-in: rows at run time in every store, setAlarm calls, and the later prunes.
    rows_written_per_run: perRun(total),
    at_run_time: {
      by_store: window.byStore,
      set_alarm_calls: alarms(window),
      billed_rows: window.totalBilledRows,
      per_run: perRun(window.totalBilledRows),
    },
    later_prune: prune
      ? {
          by_store: prune.byStore,
          billed_rows: prune.totalBilledRows,
          per_run: perRun(prune.totalBilledRows),
        }
      : null,
    statements,
  };
}
