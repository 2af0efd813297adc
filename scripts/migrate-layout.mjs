#!/usr/bin/env node
// `npm run migrate:layout -- --url https://edgecron.example.workers.dev [--batch 200] [--pause-ms 0]`: moves an
// older single-database deployment's jobs into the job databases (docs/SCALING.md, "Moving an
// existing deployment"). Each call to POST /v1/admin/job-layout/moves moves one batch and says
// how many remain; the legacy table is the only progress, so this command can be stopped, or
// the Worker restarted, at any point and simply run again. Needs EDGECRON_ADMIN_TOKEN.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: process.env.EDGECRON_URL ?? "http://127.0.0.1:8787" },
    batch: { type: "string", default: "200" },
    "max-failures": { type: "string", default: "10" },
    // A pause between calls spares the databases' single writers on a busy deployment.
    "pause-ms": { type: "string", default: "0" },
  },
});
const token = process.env.EDGECRON_ADMIN_TOKEN;
if (!token) {
  console.error("migrate:layout needs EDGECRON_ADMIN_TOKEN (the admin token of the deployment)");
  process.exit(2);
}
const endpoint = `${String(values.url).replace(/\/$/, "")}/v1/admin/job-layout/moves`;
const limit = Number(values.batch);
const maxFailures = Number(values["max-failures"]);
const pauseMs = Number(values["pause-ms"]);
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @returns {Promise<{ moved: number, remaining: number }>} */
async function moveOnce() {
  const res = await fetch(endpoint, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ limit }),
  });
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return /** @type {Promise<{ moved: number, remaining: number }>} */ (res.json());
}

let total = 0;
let failures = 0;
for (;;) {
  try {
    const { moved, remaining } = await moveOnce();
    failures = 0;
    total += moved;
    console.log(`moved ${moved} (total ${total}); ${remaining} left in the legacy table`);
    if (remaining === 0) break;
    if (pauseMs > 0) await sleep(pauseMs);
  } catch (error) {
    // A restart or a blip: nothing is half-done that the next call does not finish.
    failures += 1;
    console.error(
      `move failed (${failures}/${maxFailures}): ${error instanceof Error ? error.message : error}`,
    );
    if (failures >= maxFailures) process.exit(1);
    await sleep(Math.min(30_000, 500 * 2 ** failures));
  }
}
console.log('layout migration complete: set LEGACY_JOBS = "off" in wrangler.toml and deploy');
