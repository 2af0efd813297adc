// Resolving missed_run alerts once their job fires again: a run of the job's schedule (not a
// manual trigger or backfill: the schedule is what was stuck), at the missed instant (recovered
// late) or a later one, that a shard dispatched (it has a fence). The run history lives in the
// shards, so each job's shard is asked (one request per shard with open alerts). An alert that
// names a run still waiting for dispatch resolves when that run is claimed, not before.

import { parseRunId, runIdFor } from "../../src/core/runs/run-id";
import { listOpenMissedRunAlerts, resolveAlertsJobFired } from "../../src/db/alerts";
import { logEvent } from "../../src/log";
import { shardOfStoredJob } from "../../src/service/run-history";
import { readFiredSince } from "../../src/shard/history-client";

/** Open alerts looked at per pass; a backlog resolves over several passes. */
const OPEN_ALERTS_PER_PASS = 200;

export async function resolveMissedRunAlerts(env: Env, nowMs: number): Promise<number> {
  const open = await listOpenMissedRunAlerts(env.DB, OPEN_ALERTS_PER_PASS);
  const byShard = new Map<number, typeof open>();
  for (const alert of open) {
    const shard = await shardOfStoredJob(env, alert.tenantId, alert.jobId);
    byShard.set(shard, [...(byShard.get(shard) ?? []), alert]);
  }
  const fired: string[] = [];
  await Promise.all(
    [...byShard].map(async ([shard, alerts]) => {
      try {
        const matched = await readFiredSince(
          env,
          shard,
          alerts.map((alert) => ({
            jobId: alert.jobId,
            sinceMs: alert.scheduledAtMs,
            namedRunAtMs: namedRunAtMs(alert.runId, alert.jobId),
          })),
        );
        for (const index of matched) {
          const alert = alerts[index];
          if (alert) fired.push(alert.id);
        }
      } catch (error) {
        logEvent("maintenance.alert_resolution_failed", { shard, error });
      }
    }),
  );
  return resolveAlertsJobFired(env.DB, fired, nowMs);
}

/** The instant of the run an alert names, when it names one of its job's runs. */
function namedRunAtMs(runId: string | null, jobId: string): number | undefined {
  const named = runId === null ? null : parseRunId(runId);
  return named !== null && runIdFor(jobId, named.scheduledAtMs) === runId ? named.scheduledAtMs : undefined;
}
