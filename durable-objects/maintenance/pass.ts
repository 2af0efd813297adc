// The maintenance pass. The Maintenance DO's alarm runs it every MAINTENANCE_INTERVAL_MS (Cron
// Triggers never fire locally) and the Cron Trigger runs it in production as the backstop: the
// same code either way, and every step is idempotent, so overlapping passes are harmless.

import { jobStores } from "../../src/db/databases";
import { LAYOUT_MOVE_BATCH, moveLegacyJobs } from "../../src/db/job-layout";
import { listUnsyncedStoredJobs } from "../../src/db/job-store";
import { logEvent } from "../../src/log";
import { sweepConsoleSessions } from "../../src/service/console-sessions";
import { syncJobsOnce } from "../../src/service/job-push";
import { raiseAlerts, resendPendingAlerts } from "../../src/service/raise-alerts";
import { shardCount, watchShard } from "../../src/shard/client";
import type { WatchdogReport } from "../../src/shard/protocol";
import { moveLegacyHistory } from "./legacy-history";
import { resolveMissedRunAlerts } from "./resolve-alerts";
import { syncTenantThrottledAlerts, tenantWaitsOf } from "./tenant-throttle-alerts";

const OUTBOX_BATCH = 500;
/** Terminal runs stay in the wheel's table (late-duplicate detection) this long after settling. */
const SHARD_RUN_RETENTION_MS = 24 * 3_600_000;
const DAY_MS = 86_400_000;
const WATCHDOG_PARALLELISM = 16;

export interface MaintenanceSummary {
  resynced: number;
  unsynced: number;
  alarmsRearmed: number;
  missedRunAlerts: number;
  historyPruned: number;
  /** Legacy D1 history rows moved into their shards this pass. */
  legacyHistoryMoved: number;
  /** Alert deliveries handed (again) to the side-delivery queue: never sent, or lost. */
  alertsResent: number;
  /** missed_run alerts resolved because their job fired again. */
  alertsResolved: number;
  /** Jobs moved out of the control database's legacy table (LEGACY_JOBS = "read"). */
  jobsMoved: number;
  /** tenant_throttled alerts raised and resolved this pass. */
  throttledAlerts: number;
  throttledResolved: number;
}

export async function runMaintenancePass(env: Env, nowMs: number): Promise<MaintenanceSummary> {
  const summary: MaintenanceSummary = {
    resynced: 0,
    unsynced: 0,
    alarmsRearmed: 0,
    missedRunAlerts: 0,
    historyPruned: 0,
    legacyHistoryMoved: 0,
    alertsResent: 0,
    alertsResolved: 0,
    jobsMoved: 0,
    throttledAlerts: 0,
    throttledResolved: 0,
  };
  // Each step on its own: one that fails (a D1 hiccup in the outbox sweep) must not skip the
  // watchdog, which is what re-arms a shard whose alarm was lost.
  // Before the outbox: a moved job is then swept (and later found) in its own database.
  await step("legacy_jobs", async () => {
    summary.jobsMoved = (await moveLegacyJobs(jobStores(env), { limit: LAYOUT_MOVE_BATCH })).moved;
  });
  await step("outbox", () => sweepOutbox(env, summary));
  const shareWaits: ShareWaitReports = { reports: [], complete: true };
  await step("watchdog", () => watchShards(env, summary, shareWaits));
  await step("tenant_throttled", async () => {
    const synced = await syncTenantThrottledAlerts(
      env,
      tenantWaitsOf(shareWaits.reports),
      shareWaits.complete,
      nowMs,
    );
    summary.throttledAlerts = synced.raised;
    summary.throttledResolved = synced.resolved;
  });
  await step("resolve_alerts", async () => {
    summary.alertsResolved = await resolveMissedRunAlerts(env, nowMs);
  });
  await step("legacy_history", async () => {
    summary.legacyHistoryMoved = await moveLegacyHistory(env);
  });
  await step("console_sessions", () => sweepConsoleSessions(env, nowMs));
  // Delivery itself happens on the side-delivery queue: a hanging webhook never holds this alarm.
  await step("resend_alerts", async () => {
    summary.alertsResent = await resendPendingAlerts(env, nowMs);
  });
  logEvent("maintenance.pass", { ...summary });
  return summary;
}

async function step(name: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    logEvent("maintenance.step_failed", { step: name, error });
  }
}

/** Jobs whose latest version no shard confirmed (a failed push, a crash after the D1 write). */
async function sweepOutbox(env: Env, summary: MaintenanceSummary): Promise<void> {
  const unsynced = await listUnsyncedStoredJobs(jobStores(env), OUTBOX_BATCH);
  if (unsynced.length === 0) return;
  const synced = await syncJobsOnce(env, unsynced);
  summary.resynced = synced.length;
  summary.unsynced = unsynced.length - synced.length;
}

/** Every shard: alarm armed if it has work, overdue jobs reported, old terminal runs pruned. */
/** What the shards' watchdog reports said of tenants waiting for their share. */
interface ShareWaitReports {
  reports: NonNullable<WatchdogReport["shareWaits"]>[];
  /** Every shard answered. */
  complete: boolean;
}

async function watchShards(
  env: Env,
  summary: MaintenanceSummary,
  shareWaits: ShareWaitReports,
): Promise<void> {
  const shards = Array.from({ length: shardCount(env) }, (_, shard) => shard);
  for (let i = 0; i < shards.length; i += WATCHDOG_PARALLELISM) {
    const reports = await Promise.all(
      shards.slice(i, i + WATCHDOG_PARALLELISM).map(async (shard) => {
        try {
          return await watchShard(env, shard, {
            runsMs: SHARD_RUN_RETENTION_MS,
            historyMs: historyRetentionDays(env) * DAY_MS,
          });
        } catch (error) {
          logEvent("maintenance.watchdog_failed", { shard, error });
          return null;
        }
      }),
    );
    for (const report of reports) {
      if (!report) {
        shareWaits.complete = false;
        continue;
      }
      shareWaits.reports.push(report.shareWaits ?? []);
      if (report.alarmRearmed) {
        summary.alarmsRearmed += 1;
        logEvent("shard.alarm_rearmed", { note: "a shard had work due and no alarm" });
      }
      summary.missedRunAlerts += report.overdue.length;
      summary.historyPruned += report.historyPruned;
      await raiseAlerts(
        env,
        report.overdue.map((job) => ({
          tenantId: job.tenantId,
          jobId: job.jobId,
          runId: job.runId,
          kind: "missed_run" as const,
          dedupKey: `missed:${job.jobId}:${job.scheduledAtMs}`,
          message: `Job ${job.jobId} missed its instant ${new Date(job.scheduledAtMs).toISOString()} by ${Math.round(job.overdueMs / 1000)} s${job.runId === null ? "" : " (its run is still waiting for dispatch)"}`,
          details: { scheduled_at: new Date(job.scheduledAtMs).toISOString(), overdue_ms: job.overdueMs },
        })),
      );
    }
  }
}

function historyRetentionDays(env: Env): number {
  return Number(env.HISTORY_RETENTION_DAYS) || 30;
}
