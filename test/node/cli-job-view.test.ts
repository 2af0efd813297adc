// The CLI shows every field of a job: `jobs get`/`create`/`update` one per line, `jobs list --wide`
// one per column. The list of fields is held to the API's job schema, so a field the API gains
// fails here until the CLI shows it.
import { describe, expect, it } from "vitest";
import { jobSchema } from "../../src/api/v1/schemas";
import { JOB_FIELDS, renderJob, WIDE_JOB_COLUMNS } from "../../src/cli/job-view";
import { renderTable } from "../../src/cli/render";
import type { Job } from "../../src/client";
import { fullJob, sampleJob } from "./stub-server";

/** What each field must show for fullJob(): the field's label and the text its value holds. */
const SHOWN: [string, string][] = [
  ["id", "job_01"],
  ["name", "renew-42"],
  ["status", "ACTIVE"],
  ["version", "1"],
  ["shard", "3"],
  ["schedule", 'cron "30 2 * * *" America/New_York (DST gap skip, overlap both)'],
  ["", "every 15m from 2026-12-01T00:00:00Z"],
  ["calendars", "uk-holidays, shutdown"],
  ["exclude", "2026-12-25; 2026-12-24 to 2027-01-01; every sat, sun (Europe/London)"],
  ["target", "PUT https://example.com/hook"],
  ["target headers", "x-tenant: acme"],
  ["target body", '{"sub":42}'],
  ["retry", "7 attempts; backoff 10s ×3 up to 2h, equal jitter; also on 409, 423"],
  ["misfire", "catch_up (at most 4), grace 5m"],
  ["overlap", "buffer_one"],
  ["timeout", "45s"],
  ["completion", "callback"],
  ["heartbeat timeout", "10m"],
  ["start at", "2026-12-01T00:00:00.000Z"],
  ["end at", "2027-12-01T00:00:00.000Z"],
  ["max runs", "99"],
  ["priority", "1"],
  ["jitter", "30s"],
  ["window", "MON-FRI 08:00-20:00 Europe/Berlin, outside: skip"],
  ["flexible window", "up to 15m after each instant"],
  ["debounce", "trailing 30s, key acct, at most 5m"],
  ["flow control", "key billing: 10 per 1m, 2 in flight"],
  ["pause after failures", "6"],
  ["on failure", "https://example.com/failed"],
  ["alert after", "7m"],
  ["metadata", '{"team":"payments"}'],
  ["qstash", '{"callback":"https://example.com/cb","labels":["nightly"]}'],
  ["managed by", "schedules.yaml"],
  ["next fires", "2026-12-01T14:00:00.000Z"],
  ["", "2026-12-02T14:00:00.000Z"],
  ["next fires stopped", "-"],
  ["created", "2026-11-29T00:00:00.000Z"],
  ["updated", "2026-11-29T00:00:00.000Z"],
];

describe("the CLI's job view", () => {
  it("has a field for every field of the API's job (a new one fails here until it is shown)", () => {
    const shown = new Set(JOB_FIELDS.flatMap((field) => field.keys));
    expect(Object.keys(jobSchema.shape).filter((key) => !shown.has(key as keyof Job))).toEqual([]);
  });

  it("shows every field of a job on its own line (jobs get, create, update)", () => {
    const lines = renderJob(fullJob() as unknown as Job)
      .trimEnd()
      .split("\n");
    const width = Math.max(...SHOWN.map(([label]) => label.length));
    expect(lines).toEqual(SHOWN.map(([label, value]) => `${label.padEnd(width)}  ${value}`));
  });

  it("says '-' for a field left unset instead of leaving it out", () => {
    const text = renderJob(sampleJob() as unknown as Job);
    for (const label of ["window", "flexible window", "debounce", "flow control", "exclude", "qstash"]) {
      expect(text).toMatch(new RegExp(`^${label} +-$`, "m"));
    }
    expect(text).toMatch(/^priority +3$/m);
  });

  it("gives list --wide a column per field, with the same values on one line", () => {
    const table = renderTable(WIDE_JOB_COLUMNS, [fullJob() as unknown as Job]);
    const [header, row] = table.trimEnd().split("\n");
    for (const field of JOB_FIELDS) expect(header).toContain(field.header);
    for (const [, value] of SHOWN) {
      if (value === "2026-12-02T14:00:00.000Z" || value.startsWith("every 15m")) continue;
      expect(row).toContain(value);
    }
    expect(row).toContain("2026-12-01T14:00:00.000Z, 2026-12-02T14:00:00.000Z");
    expect(row).toContain(
      'cron "30 2 * * *" America/New_York (DST gap skip, overlap both), every 15m from 2026-12-01T00:00:00Z',
    );
  });
});
