import type { Job, JobStatus } from "../../client/index";
import { JOB_STATUSES } from "../../core/runs/run-state";
import {
  type Command,
  type Context,
  filterFlag,
  intFlag,
  printJson,
  stringFlag,
  UsageError,
} from "../context";
import { readJobFile } from "../job-file";
import { hasSpecFlags, JOB_FLAG_OPTIONS, jobFromFlags } from "../job-flags";
import { formatJobSchedules, renderJob, WIDE_JOB_COLUMNS } from "../job-view";
import { oneOfFlag, PAGE_OPTIONS, pageParams, printList } from "../list-command";
import { renderKeyValues } from "../render";
import { backfill, update } from "./job-changes";

const STATUSES: readonly JobStatus[] = JOB_STATUSES;

const JOB_COLUMNS = [
  { header: "ID", value: (job: Job) => job.id, maxWidth: 64 },
  { header: "NAME", value: (job: Job) => job.name, maxWidth: 40 },
  { header: "STATUS", value: (job: Job) => job.status },
  { header: "SCHEDULE", value: (job: Job) => formatJobSchedules(job), maxWidth: 44 },
  { header: "NEXT FIRE", value: (job: Job) => job.next_fire_times[0] },
];

const create: Command = {
  path: ["jobs", "create"],
  args: '(--file job.json | --name <name> (--cron "<expr>" [--tz <zone>] | --every <dur> | --at <instant> | --delay <dur>) --target <url|binding>)',
  summary: "create a job",
  details: [
    "--file -            read the job JSON from stdin (the body of POST /v1/jobs)",
    "--tz <zone>         IANA time zone of --cron (default UTC)",
    "--target <url>      the HTTP endpoint called at each fire time, or a binding of the",
    "                    deployment: service:NAME/path, workflow:NAME, queue:NAME",
    "--method <m>        GET, POST (default), PUT, PATCH, DELETE",
    "--body <json|text>  request body sent to the target",
    '--header "k: v"     extra target header (repeatable)',
    "--calendar <name>   a tenant calendar whose dates are excluded (repeatable)",
    "--window <HH:MM-HH:MM>  delivery window: local times the job may be called at",
    "--window-days <d>   weekdays of the window, e.g. MON-FRI or MON,WED (default every day)",
    "--window-tz <zone>  zone of the window (default the --tz of --cron, else UTC)",
    "--outside <policy>  defer (default: run at the next opening) or skip",
    "--flexible-window <dur>  fire each instant at a point within this long after it",
    "--max-attempts <n>  --timeout <dur>  --idempotency-key <key>",
    "--debounce <dur>    fold triggers inside this period into one run; with",
    "                    --debounce-mode leading|trailing (default trailing),",
    "                    --debounce-key <key>, --debounce-max-wait <dur> (trailing)",
  ],
  options: JOB_FLAG_OPTIONS,
  positionals: [0, 0],
  async run(ctx) {
    const file = stringFlag(ctx.values, "file");
    if (file !== undefined && hasSpecFlags(ctx.values)) {
      throw new UsageError("give the job either with --file or with flags, not both");
    }
    const job = file !== undefined ? await readJobFile(file) : jobFromFlags(ctx.values);
    const idempotencyKey = stringFlag(ctx.values, "idempotency-key");
    const created = await ctx.client().jobs.create(job, idempotencyKey ? { idempotencyKey } : {});
    if (ctx.json) printJson(ctx.io, created);
    else ctx.io.stdout.write(`created ${created.id}\n${renderJob(created)}`);
    return 0;
  },
};

const list: Command = {
  path: ["jobs", "list"],
  args: "[--status ACTIVE|PAUSED|COMPLETED|DELETED] [--name <prefix>] [--limit <n>] [--cursor <c>] [--all] [--wide]",
  summary: "list jobs, newest first",
  details: [
    "--wide             a column for every field of a job (as jobs get shows them), one line per job",
  ],
  options: {
    wide: { type: "boolean" },
    status: { type: "string" },
    name: { type: "string" },
    ...PAGE_OPTIONS,
  },
  positionals: [0, 0],
  async run(ctx) {
    const params = {
      status: oneOfFlag(ctx.values, "status", STATUSES, (value) => value.toUpperCase()),
      name: filterFlag(ctx.values, "name"),
      ...pageParams(ctx.values),
    };
    const columns = ctx.values.wide ? WIDE_JOB_COLUMNS : JOB_COLUMNS;
    return printList(ctx, ctx.client().jobs, params, columns, "no jobs");
  },
};

const get: Command = {
  path: ["jobs", "get"],
  args: "<job-id> [--next <n>]",
  summary: "show a job and its next fire times",
  options: { next: { type: "string" } },
  positionals: [1, 1],
  async run(ctx) {
    const next = intFlag(ctx.values, "next", { min: 1, max: 100 });
    const job = await ctx.client().jobs.get(ctx.positionals[0] ?? "", next ? { next } : {});
    if (ctx.json) printJson(ctx.io, job);
    else ctx.io.stdout.write(renderJob(job));
    return 0;
  },
};

function jobAction(action: "pause" | "resume" | "delete", summary: string): Command {
  return {
    path: ["jobs", action],
    args: "<job-id>",
    summary,
    options: {},
    positionals: [1, 1],
    async run(ctx: Context) {
      const job = await ctx.client().jobs[action](ctx.positionals[0] ?? "");
      if (ctx.json) printJson(ctx.io, job);
      else ctx.io.stdout.write(`${job.id} ${job.status}\n`);
      return 0;
    },
  };
}

const trigger: Command = {
  path: ["jobs", "trigger"],
  args: "<job-id>",
  summary: "run a job now, outside its schedule",
  details: ["--debounce-key <key>  fold under this key instead of the job's debounce.key"],
  options: { "debounce-key": { type: "string" } },
  positionals: [1, 1],
  async run(ctx) {
    const debounceKey = stringFlag(ctx.values, "debounce-key");
    const result = await ctx
      .client()
      .jobs.trigger(ctx.positionals[0] ?? "", debounceKey === undefined ? {} : { debounceKey });
    if (ctx.json) printJson(ctx.io, result);
    else
      ctx.io.stdout.write(
        renderKeyValues([
          ["run", result.run_id],
          ["job", result.job_id],
          ["scheduled at", result.scheduled_at],
          ["fires at", result.fire_at],
          ["folded", result.folded ? "yes (into an earlier trigger's run)" : "no"],
        ]),
      );
    return 0;
  },
};

export const jobCommands: Command[] = [
  create,
  list,
  get,
  update,
  jobAction("pause", "pause a job: nothing fires until resume"),
  jobAction("resume", "resume a paused job (its misfire policy decides about missed runs)"),
  trigger,
  backfill,
  jobAction("delete", "delete a job and cancel its pending runs"),
];
