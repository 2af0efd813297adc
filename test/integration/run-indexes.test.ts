// Every index entry is a row Cloudflare bills, written with the row it indexes. A shard's tables
// that are written as runs go (durable-objects/shard/README.md: the journal, the snapshot, the
// history pages, the job definitions) carry their key and nothing else; the per-row tables of
// schema v23 (runs, run_history's aggregates) keep no index a run would write. An index added to
// any of them fails this test: it must come with a reason, here.

import { describe, expect, it } from "vitest";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { placeJob, seedTenant, snapshot, spec, stubFor, targetUrl, uniqueJobId } from "../helpers/scheduling";
import { inShardTables } from "../helpers/shard-state";

disarmShardsAfterEach();

/** Table -> the indexes it may have (a key's automatic index included), and why. */
const ALLOWED: Record<string, string[]> = {
  // A job's definition, written when it is created or changed: its key (job_id, TEXT PRIMARY KEY).
  jobs: ["sqlite_autoindex_jobs_1"],
  // Rowid tables keyed by an INTEGER PRIMARY KEY, and a WITHOUT ROWID table whose key is the table.
  journal: [],
  snapshot: [],
  history_pages: [],
  // Emptied by the first start of schema v24 (read into memory); their keys stay for that read.
  runs: ["sqlite_autoindex_runs_1", "sqlite_autoindex_runs_2"],
  // Records of schema v11-v23 kept readable until retention: its readers' indexes, no triggers.
  run_history: ["run_history_tenant", "run_history_tenant_state", "run_history_created"],
};

describe("a shard's indexes", () => {
  it("are only the keys of the tables written by batch, and nothing a run writes per row", async () => {
    await seedTenant();
    const jobId = uniqueJobId("indexes");
    await placeJob(
      snapshot(
        jobId,
        spec({
          schedule: { type: "cron", expr: "0 0 1 1 *", timezone: "UTC" },
          target: { url: targetUrl("/ok") },
        }),
      ),
    );
    const { indexes, triggers } = await inShardTables(stubFor(jobId), (sql) => ({
      indexes: sql
        .exec<{ tbl_name: string; name: string }>(
          "SELECT tbl_name, name FROM sqlite_master WHERE type = 'index' ORDER BY tbl_name, name",
        )
        .toArray(),
      triggers: sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger'").toArray(),
    }));
    for (const [table, allowed] of Object.entries(ALLOWED)) {
      const found = indexes.filter((index) => index.tbl_name === table).map((index) => index.name);
      expect(found.sort(), table).toEqual([...allowed].sort());
    }
    expect(triggers).toEqual([]);
  });
});
