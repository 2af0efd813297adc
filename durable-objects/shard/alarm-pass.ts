// What one alarm does: a pass of the timing wheel, then (paced while backlogged) the write-behind
// of what the shard decided (./write-behind.ts: job statuses to D1, dead letters out).

import { logEvent } from "../../src/log";
import { raisePauseAlerts } from "../../src/service/raise-alerts";
import { shardCount } from "../../src/shard/client";
import { windowLimits } from "./dispatch/budget";
import { tickSettings } from "./dispatch/pass-settings";
import { tenantWeightReader } from "./flow/tenant-weights";
import type { ShardState } from "./state/shard-state";
import type { ShardTestSeam } from "./test-seam";
import type { BacklogPacer } from "./wheel/backlog";
import { runTick } from "./wheel/tick";
import { writeBehind } from "./write-behind";

export interface AlarmPassContext {
  state: ShardState;
  env: Env;
  shard: number;
  backlog: BacklogPacer;
  testSeam: ShardTestSeam;
}

/** Runs one pass; never throws. Returns true when the pass left work behind (come back soon). */
export async function runAlarmPass(context: AlarmPassContext): Promise<boolean> {
  const { state, env, shard, backlog, testSeam } = context;
  let busy = false;
  try {
    const settings = tickSettings(env, shard);
    settings.window = backlog.windowSize(windowLimits(shardCount(env)));
    settings.tenantWeight = tenantWeightReader(state.sql);
    settings.shareScanDue = (nowMs) => backlog.shareScanDue(nowMs);
    const summary = await runTick(state, testSeam.tickSettings(settings), Date.now());
    busy = summary.more;
    backlog.afterTick(summary, Date.now());
    state.commit();
    testSeam.beforeFlush();
    if (backlog.flushNow(summary, Date.now())) {
      const flushed = await writeBehind(state, env, shard);
      if (flushed.pausedJobs.length > 0) await raisePauseAlerts(env, flushed.pausedJobs);
    }
  } catch (error) {
    // Never lose timers: what the pass did is committed below and the caller re-arms for
    // whatever is still due. Swallowing keeps the runtime's own 6 retries for failures we cannot
    // see (a crash mid-pass).
    logEvent("shard.alarm_failed", { shard, error });
  } finally {
    state.commit();
  }
  return busy;
}
