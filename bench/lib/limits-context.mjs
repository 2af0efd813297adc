// The quantities the limits table (./limits-table.mjs) reads for one arrival rate, on the dispatch
// lane the plan chose (./lane-plan.mjs): what goes through Queues, what each shard and dispatcher
// receives and opens.

export /** The quantities every row reads, for one arrival rate, on the lane the plan chose. */
function scenarioContext(plan, costs, load, assumptions, name, rate) {
  const shards = plan.shards.recommended;
  const queues = plan.queues.recommended;
  const a = assumptions.lane;
  const lane = plan.lane;
  const runsPerShardS = rate / shards;
  const latencyS = load.targetLatencyMs / 1000;
  const common = {
    rate,
    shards,
    queues,
    runsPerShardS,
    runBytes: assumptions.runBytesInMessage,
    shardCpuMs: costs.shardCpuMsPerRun ?? 0.5,
    shardBytes: plan.history.shard_bytes,
    fanoutReadsPerS: assumptions.apiFanoutReadsPerS,
    jobDatabaseBytes: plan.d1.bytes_per_job_database,
    deadLetterBytes:
      load.avg * assumptions.deadLetterShare * 86_400 * load.historyDays * assumptions.deadLetterBytes,
    overviewSubrequests: plan.history.overview_subrequests,
    windowNeeded: lane.window.needed_per_shard[name],
  };
  if (lane.chosen === "pool") {
    const pool = lane.pool_lane;
    const used = pool.scenarios[name].used_per_shard;
    // on Queues: slow targets and retries, 6 runs a message, one round of calls per invocation
    const slowMsgs = (rate * a.slowShare) / 6;
    const retryMsgs = (rate * a.retryShare) / 6;
    const slowBatchS = a.holdS + a.slowLatencyMs / 1000;
    return {
      ...common,
      messagesPerS: slowMsgs + retryMsgs,
      messagesPerShardTick: Math.max(1, Math.ceil(((a.slowShare + a.retryShare) * runsPerShardS) / 6)),
      messageBytes: 6 * assumptions.runBytesInMessage,
      consumerBatchMessages: 1,
      runsPerInvocation: 6,
      concurrentInvocations: Math.ceil(slowMsgs * slowBatchS + retryMsgs * (a.holdS + latencyS)),
      batchSeconds: slowBatchS,
      backlogRuns: rate * (a.slowShare + a.retryShare),
      // a pass, and per dispatcher in use: its hand-off, claim and coalesced outcome
      shardRequestsPerS: 1 + 3 * used,
      shardConnections: Math.min(6, used + 1),
      dispatcherRequestsPerS: 3,
      dispatcherRunsPerInstant: Math.ceil(pool.scenarios[name].busy_shard_runs / used),
    };
  }
  const k = lane.queues_lane.runs_per_invocation;
  const batchS = lane.queues_lane.batch_seconds;
  return {
    ...common,
    messagesPerS: rate / k,
    messagesPerShardTick: Math.ceil(runsPerShardS / k),
    messageBytes: k * assumptions.runBytesInMessage,
    consumerBatchMessages: 1,
    runsPerInvocation: k,
    concurrentInvocations: Math.ceil((rate / k) * batchS),
    batchSeconds: batchS,
    backlogRuns: rate,
    shardRequestsPerS: 1 + (2 * rate) / k / shards,
    shardConnections: Math.min(6, Math.ceil(runsPerShardS / k / 100)),
    dispatcherRequestsPerS: 0,
    dispatcherRunsPerInstant: 0,
  };
}
