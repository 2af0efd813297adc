// `jobs update` (a JSON Merge Patch of the job) and `jobs backfill` (runs for past instants).
import type { JobUpdate } from "../../client/index";
import { type Command, intFlag, printJson, stringFlag, UsageError } from "../context";
import { readJobFile } from "../job-file";
import { hasSpecFlags, JOB_FLAG_OPTIONS, jobPatchFromFlags } from "../job-flags";
import { renderJob } from "../job-view";
import { renderKeyValues } from "../render";

export const update: Command = {
  path: ["jobs", "update"],
  args: '<job-id> (--file patch.json | [--name <name>] [--cron "<expr>" [--tz <zone>] | --every <dur> | --at <instant> | --delay <dur>] [--target <url>] ...) [--if-version <n>]',
  summary: "change a job: only the fields given change (PATCH /v1/jobs/{id})",
  details: [
    "--file -            read the patch JSON from stdin (fields as in jobs create; null removes one)",
    "a schedule flag replaces the whole schedule; --target, --method, --header, --body change the target",
    "--max-attempts <n>  --timeout <dur>  --name <name>",
    "--window <HH:MM-HH:MM> [--window-days <d>] [--window-tz <zone>] [--outside defer|skip]  --flexible-window <dur>",
    "--if-version <n>    refuse (409) unless the job is still at this version",
  ],
  options: { ...JOB_FLAG_OPTIONS, "if-version": { type: "string" } },
  positionals: [1, 1],
  async run(ctx) {
    const file = stringFlag(ctx.values, "file");
    if (file !== undefined && hasSpecFlags(ctx.values)) {
      throw new UsageError("give the change either with --file or with flags, not both");
    }
    const patch: JobUpdate = file !== undefined ? await readJobFile(file) : jobPatchFromFlags(ctx.values);
    if (Object.keys(patch).length === 0) {
      throw new UsageError(
        "nothing to change: give --file or at least one field flag (--name, --cron, --target, ...)",
      );
    }
    const ifMatch = intFlag(ctx.values, "if-version", { min: 1, max: Number.MAX_SAFE_INTEGER });
    const job = await ctx
      .client()
      .jobs.update(ctx.positionals[0] ?? "", patch, ifMatch === undefined ? {} : { ifMatch });
    if (ctx.json) printJson(ctx.io, job);
    else ctx.io.stdout.write(`updated ${job.id} (version ${job.version})\n${renderJob(job)}`);
    return 0;
  },
};

export const backfill: Command = {
  path: ["jobs", "backfill"],
  args: "<job-id> --from <instant> --to <instant>",
  summary: "run a job for its past instants in [from, to] (at most 1000 runs)",
  details: [
    "--from, --to        ISO 8601 instants, e.g. 2026-11-30T00:00:00Z; --to must not be in the future",
    "instants that already ran are skipped (each instant runs at most once)",
  ],
  options: { from: { type: "string" }, to: { type: "string" } },
  positionals: [1, 1],
  async run(ctx) {
    const from = stringFlag(ctx.values, "from");
    const to = stringFlag(ctx.values, "to");
    if (from === undefined || to === undefined) {
      throw new UsageError("--from and --to are both required (ISO 8601 instants)");
    }
    const result = await ctx.client().jobs.backfill(ctx.positionals[0] ?? "", { from, to });
    if (ctx.json) printJson(ctx.io, result);
    else
      ctx.io.stdout.write(
        renderKeyValues([
          ["created", String(result.created)],
          ["skipped", String(result.skipped)],
          ["runs", result.run_ids],
        ]),
      );
    return 0;
  },
};
