// Micro-benchmark of nextFireTimes on the shard's hot path: each call asks for the one fire time
// after the previous one, as the alarm tick does for every fired recurring job.
//
//   node bench/cron-micro.mjs [iterations]
//
// Bundles src/core/schedules/schedule.ts with esbuild (already installed with wrangler and vite) into memory.
import { build } from "esbuild";

const iterations = Number(process.argv[2] ?? 20_000);
const bundle = await build({
  entryPoints: [new URL("../src/core/schedules/schedule.ts", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  platform: "node",
  write: false,
  logLevel: "warning",
});
const source = bundle.outputFiles[0]?.text ?? "";
const { nextFireTimes } = await import(
  `data:text/javascript;base64,${Buffer.from(source).toString("base64")}`
);

const cases = [
  { type: "cron", expr: "0 9 * * *", timezone: "America/New_York" },
  { type: "cron", expr: "* * * * *", timezone: "UTC" },
  { type: "cron", expr: "*/5 * * * *", timezone: "Europe/London" },
  { type: "cron", expr: "0 9 * * MON-FRI", timezone: "Europe/Berlin" },
  { type: "cron", expr: "*/10 * * * * *", timezone: "Asia/Kathmandu" },
  {
    type: "cron",
    expr: "30 2 * * *",
    timezone: "Australia/Lord_Howe",
    dst: { gap: "shift", overlap: "both" },
  },
  { type: "cron", expr: "0 0 LW * *", timezone: "Australia/Sydney" },
  { type: "cron", expr: "0 0 29 2 *", timezone: "UTC" },
  { type: "interval", every: "15m", anchor: "2026-01-01T00:00:00Z" },
];

// A shard tick: every job of a mixed population asks for its next fire after the same instant,
// one tick per minute for an hour (zone offsets cached per day are shared by all jobs).
const population = Array.from({ length: 1_000 }, (_, i) => cases[i % cases.length]);
let tickMs = Date.parse("2026-03-08T05:00:00Z");
let calls = 0;
const tickStartNs = process.hrtime.bigint();
for (let minute = 0; minute < 60; minute++, tickMs += 60_000) {
  for (const schedule of population) {
    nextFireTimes(schedule, tickMs, 1);
    calls++;
  }
}
const tickElapsedMs = Number(process.hrtime.bigint() - tickStartNs) / 1e6;
console.log(
  `shard ticks: ${calls} calls over ${population.length} mixed jobs: ${((tickElapsedMs * 1000) / calls).toFixed(2)} us/call, ${Math.round((calls / tickElapsedMs) * 1000)} calls/s`,
);

// Worst case for the caches: one job marching forward, every call in days not seen before.
console.log(`chained: nextFireTimes(schedule, previousFireMs, 1), ${iterations} calls per case`);
for (const schedule of cases) {
  let afterMs = Date.parse("2026-01-01T00:00:00Z");
  const startMs = afterMs;
  // Chains fire to fire; a schedule that runs out (year 9999) starts over.
  const step = () => {
    afterMs = nextFireTimes(schedule, afterMs, 1)[0] ?? startMs;
  };
  for (let i = 0; i < 200; i++) step(); // warm up
  const startNs = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) step();
  const elapsedMs = Number(process.hrtime.bigint() - startNs) / 1e6;
  const label =
    schedule.type === "cron" ? `${schedule.expr} @ ${schedule.timezone}` : `interval ${schedule.every}`;
  const perCallUs = ((elapsedMs * 1000) / iterations).toFixed(2);
  const callsPerSecond = Math.round((iterations / elapsedMs) * 1000);
  console.log(
    `${label.padEnd(42)} ${perCallUs.padStart(8)} us/call ${String(callsPerSecond).padStart(9)} calls/s`,
  );
}
