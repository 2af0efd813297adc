// The deletes scenario (npm run bench -- --scenario deletes): what one DELETE costs on a quiet
// scheduler, the figure beside the flood's control-action round (./flood-control-actions.mjs),
// where the same 1,500 deletes share workerd's thread with a flood. `jobs` hourly jobs are
// created, then deleted one by one, 8 in flight; reported: the wall time, the answer times and
// workerd's CPU per delete (/proc). With BENCH_PROFILE=1 also a CPU profile of the isolate.
import { isolateProfiler } from "./profile.mjs";
import { percentiles } from "./report.mjs";
import { cpuSeconds, workerdMemory } from "./runtime.mjs";
import { createJobs } from "./scenarios.mjs";

const DELETES_IN_FLIGHT = 8;

export async function deletes(ctx, { jobs }) {
  const created = await createJobs(ctx.api, jobs, (i) => ({
    name: `delete-${i}`,
    schedule: { type: "interval", every: "1h" },
    target: { type: "http", url: `${ctx.target.url}/deletes/${i}`, method: "POST" },
  }));
  const ids = created.ids.filter(Boolean);
  const pids = workerdMemory().map((workerd) => workerd.pid);
  const cpuBefore = pids.map(cpuSeconds);
  const profiler = process.env.BENCH_PROFILE ? await isolateProfiler() : null;
  await profiler?.start();
  const latencies = [];
  let next = 0;
  const startedMs = Date.now();
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++];
      const t = performance.now();
      await ctx.api.call("DELETE", `/v1/jobs/${id}`);
      latencies.push(Math.round(performance.now() - t));
    }
  };
  await Promise.all(Array.from({ length: DELETES_IN_FLIGHT }, worker));
  const doneMs = Date.now() - startedMs;
  const cpuMs = pids.reduce((sum, pid, i) => sum + (cpuSeconds(pid) - cpuBefore[i]) * 1000, 0);
  const profile = profiler ? await profiler.stop("bench/results/profile-deletes.cpuprofile") : null;
  return {
    deletes: ids.length,
    in_flight: DELETES_IN_FLIGHT,
    create_failed: created.failed,
    done_ms: doneMs,
    answer_ms: percentiles(latencies),
    workerd_cpu_ms_per_delete: Math.round((cpuMs / ids.length) * 100) / 100,
    ...(profile ? { profile } : {}),
  };
}
