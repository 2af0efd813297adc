// A claimed run whose call the consumer still saw running a second after it started
// (src/core/slow-calls.ts): noted on the row, so the tick can keep that tenant's runs in flight
// here to a few. Not a state change and not history: the run is RUNNING all along.

/** Notes each run, if it is still RUNNING under the given fence; returns how many were noted (rows, not rowsWritten: that counts the index's writes too). */
export function markSlowCalls(
  sql: SqlStorage,
  runs: readonly { runId: string; fence: number }[],
  nowMs: number,
): number {
  if (runs.length === 0) return 0;
  return sql
    .exec(
      `UPDATE runs SET slow_since_ms = ?1
     FROM (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS claimed_fence
           FROM json_each(?2)) AS slow
     WHERE runs.run_id = slow.id AND runs.fence = slow.claimed_fence AND runs.state = 'RUNNING'
       AND runs.slow_since_ms IS NULL
     RETURNING runs.run_id`,
      nowMs,
      JSON.stringify(runs.map((run) => [run.runId, run.fence])),
    )
    .toArray().length;
}
