// Setup file (workers pool): every integration file starts with the schemas applied. Setup files
// run outside isolated storage and may run several times; applyD1Migrations only applies what is
// not applied yet. The control database has its schema, every job database (DB_JOBS_n) the job
// schema.
//
// Unit files skip this, and never load `cloudflare:test`: importing it evaluates the whole Worker
// (src/index.ts and everything it imports, one module at a time from vitest's process), which
// costs a fresh workerd 6-15 s per file; a unit file tests pure code and needs none of it.
import { beforeAll, expect } from "vitest";
import { loadsWorker } from "./helpers/test-kind";

beforeAll(async () => {
  if (!loadsWorker(expect.getState().testPath ?? "")) return;
  const [{ applyD1Migrations, env }, { jobStores }] = await Promise.all([
    import("cloudflare:test"),
    import("../src/db/databases"),
  ]);
  await applyD1Migrations(env.DB, env.TEST_MIGRATIONS ?? []);
  for (const db of jobStores(env).homes) await applyD1Migrations(db, env.TEST_JOB_MIGRATIONS ?? []);
});
