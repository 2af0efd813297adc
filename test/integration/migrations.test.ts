import { applyD1Migrations, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";

// A database that applied the first form of 0014 (it created this index; 0014 was later rewritten
// to drop it) never runs 0014 again: only a migration under a new name reaches it.
const FIRST_FORM_OF_0014 = `CREATE UNIQUE INDEX jobs_qstash_schedule
  ON jobs(tenant_id, json_extract(spec_json, '$.qstash.schedule_id'))
  WHERE json_extract(spec_json, '$.qstash.schedule_id') IS NOT NULL AND status <> 'DELETED'`;
const DROPPING_MIGRATION = "0018_drop_first_qstash_schedule_index.sql";

const indexExists = async () =>
  (
    await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'jobs_qstash_schedule'",
    ).all()
  ).results.length === 1;

describe("D1 migrations", () => {
  it("drop the index that the first form of 0014 created, on a database that applied that form", async () => {
    await env.DB.prepare(FIRST_FORM_OF_0014).run();
    // As that database stands: everything up to 0017 applied, 0018 not yet.
    await env.DB.prepare("DELETE FROM d1_migrations WHERE name = ?").bind(DROPPING_MIGRATION).run();
    expect(await indexExists()).toBe(true);
    await applyD1Migrations(env.DB, env.TEST_MIGRATIONS ?? []);
    expect(await indexExists()).toBe(false);
  });

  it("leave a database created afterwards without that index", async () => {
    expect(await indexExists()).toBe(false);
  });
});
