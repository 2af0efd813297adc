import { applyD1Migrations, env } from "cloudflare:test";
import { jobStores } from "../src/db/databases";

// Setup files run outside isolated storage and may run several times; applyD1Migrations only
// applies what is not applied yet. The control database has its schema, every job database
// (DB_JOBS_n) the job schema.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS ?? []);
for (const db of jobStores(env).homes) await applyD1Migrations(db, env.TEST_JOB_MIGRATIONS ?? []);
