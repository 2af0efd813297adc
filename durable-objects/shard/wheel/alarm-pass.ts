// What one alarm does: a pass of the timing wheel, then (paced while backlogged) the write-behind
// of what changed (../write-behind.ts: history records, job statuses to D1, dead letters).

import { logEvent } from "../../../src/log";
import { raisePauseAlerts } from "../../../src/service/raise-alerts";
import { shardCount } from "../../../src/shard/client";
import type { BacklogPacer } from "../dispatch/backlog";
import { windowLimits } from "../dispatch/budget";
import { tenantWeightReader } from "../flow/tenant-weights";
import type { ShardTestSeam } from "../test-seam";
import { writeBehind } from "../write-behind";
import { tickSettings } from "./pass-settings";
import { runTick } from "./tick";

export interface AlarmPassContext {
  sql: SqlStorage;
  env: Env;
  shard: number;
  backlog: BacklogPacer;
  testSeam: ShardTestSeam;
}

/** Runs one pass; never throws. Returns true when the pass left work behind (come back soon). */
export async function runAlarmPass(context: AlarmPassContext): Promise<boolean> {
  const { sql, env, shard, backlog, testSeam } = context;
  let busy = false;
  try {
    const settings = tickSettings(env, shard);
    settings.window = backlog.windowSize(windowLimits(shardCount(env)));
    settings.tenantWeight = tenantWeightReader(sql);
    settings.shareScanDue = (nowMs) => backlog.shareScanDue(nowMs);
    const summary = await runTick(sql, testSeam.tickSettings(settings), Date.now());
    busy = summary.more;
    backlog.afterTick(summary, Date.now());
    testSeam.beforeFlush();
    if (backlog.flushNow(summary, Date.now())) {
      const flushed = await writeBehind(sql, env, shard, {
        backlogged: summary.backpressured || summary.more,
      });
      if (flushed.pausedJobs.length > 0) await raisePauseAlerts(env, flushed.pausedJobs);
    }
  } catch (error) {
    // Never lose timers: everything written before the throw is durable and the caller re-arms
    // for whatever is still due. Swallowing keeps the runtime's own 6 retries for failures we
    // cannot see (a crash mid-pass).
    logEvent("shard.alarm_failed", { shard, error });
  }
  return busy;
}
