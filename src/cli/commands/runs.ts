import type { DeadLetter, Run, RunState } from "../../client/index";
import { RUN_STATES } from "../../core/runs/run-state";
import {
  type Command,
  collect,
  filterFlag,
  intFlag,
  printJson,
  printPage,
  stringFlag,
  UsageError,
} from "../context";
import { renderKeyValues } from "../render";

const STATES: readonly RunState[] = RUN_STATES;

const RUN_COLUMNS = [
  { header: "ID", value: (run: Run) => run.id, maxWidth: 64 },
  { header: "JOB", value: (run: Run) => run.job_id, maxWidth: 64 },
  { header: "KIND", value: (run: Run) => run.kind },
  { header: "STATE", value: (run: Run) => run.state },
  { header: "ATTEMPT", value: (run: Run) => `${run.attempt}/${run.max_attempts}` },
  { header: "SCHEDULED AT", value: (run: Run) => run.scheduled_at },
  { header: "HTTP", value: (run: Run) => run.target_status },
  { header: "ERROR", value: (run: Run) => run.error, maxWidth: 60 },
];

const DEAD_LETTER_COLUMNS = [
  { header: "ID", value: (dl: DeadLetter) => dl.id, maxWidth: 64 },
  { header: "JOB", value: (dl: DeadLetter) => dl.job_id, maxWidth: 64 },
  { header: "RUN", value: (dl: DeadLetter) => dl.run_id, maxWidth: 64 },
  { header: "ATTEMPT", value: (dl: DeadLetter) => dl.attempt },
  { header: "SCHEDULED AT", value: (dl: DeadLetter) => dl.scheduled_at },
  { header: "REASON", value: (dl: DeadLetter) => dl.reason, maxWidth: 40 },
  { header: "REDRIVEN", value: (dl: DeadLetter) => dl.redriven_at },
];

const pageOptions = {
  limit: { type: "string" },
  cursor: { type: "string" },
  all: { type: "boolean" },
} as const;

const runsList: Command = {
  path: ["runs", "list"],
  args: "[--job <job-id>] [--state <STATE>] [--limit <n>] [--cursor <c>] [--all]",
  summary: "run history, newest first (one job's with --job)",
  options: { job: { type: "string" }, state: { type: "string" }, ...pageOptions },
  positionals: [0, 0],
  async run(ctx) {
    const state = filterFlag(ctx.values, "state")?.toUpperCase() as RunState | undefined;
    if (state !== undefined && !STATES.includes(state))
      throw new UsageError(`--state must be one of ${STATES.join(", ")}`);
    const params = {
      job_id: filterFlag(ctx.values, "job"),
      state,
      limit: intFlag(ctx.values, "limit", { min: 1, max: 200 }),
      cursor: stringFlag(ctx.values, "cursor"),
    };
    const runs = ctx.client().runs;
    const page = ctx.values.all
      ? { data: await collect(runs.all(params)), next_cursor: null }
      : await runs.list(params);
    printPage(ctx, page, RUN_COLUMNS, "no runs");
    return 0;
  },
};

const runsGet: Command = {
  path: ["runs", "get"],
  args: "<run-id>",
  summary: "one run with its state history",
  options: {},
  positionals: [1, 1],
  async run(ctx) {
    const run = await ctx.client().runs.get(ctx.positionals[0] ?? "");
    if (ctx.json) {
      printJson(ctx.io, run);
      return 0;
    }
    ctx.io.stdout.write(
      renderKeyValues([
        ["id", run.id],
        ["job", run.job_id],
        ["state", run.state],
        ["attempt", `${run.attempt}/${run.max_attempts}`],
        ["scheduled at", run.scheduled_at],
        ["target status", run.target_status],
        ["error", run.error],
        ["events", run.events.map((e) => `${e.at} ${e.state} (attempt ${e.attempt}) ${e.reason}`)],
      ]),
    );
    return 0;
  },
};

const runsRetry: Command = {
  path: ["runs", "retry"],
  args: "<run-id>",
  summary: "retry a FAILED or DEAD_LETTERED run",
  options: {},
  positionals: [1, 1],
  async run(ctx) {
    const result = await ctx.client().runs.retry(ctx.positionals[0] ?? "");
    if (ctx.json) printJson(ctx.io, result);
    else ctx.io.stdout.write(`retrying ${result.run_id} (attempt ${result.attempt})\n`);
    return 0;
  },
};

const dlqList: Command = {
  path: ["dlq", "list"],
  args: "[--job <job-id>] [--limit <n>] [--cursor <c>] [--all]",
  summary: "dead letters, newest first",
  options: { job: { type: "string" }, ...pageOptions },
  positionals: [0, 0],
  async run(ctx) {
    const params = {
      job_id: filterFlag(ctx.values, "job"),
      limit: intFlag(ctx.values, "limit", { min: 1, max: 200 }),
      cursor: stringFlag(ctx.values, "cursor"),
    };
    const deadLetters = ctx.client().deadLetters;
    const page = ctx.values.all
      ? { data: await collect(deadLetters.all(params)), next_cursor: null }
      : await deadLetters.list(params);
    printPage(ctx, page, DEAD_LETTER_COLUMNS, "no dead letters");
    return 0;
  },
};

const dlqRedrive: Command = {
  path: ["dlq", "redrive"],
  args: "<dead-letter-id>",
  summary: "send a dead letter's run again",
  options: {},
  positionals: [1, 1],
  async run(ctx) {
    const result = await ctx.client().deadLetters.redrive(ctx.positionals[0] ?? "");
    if (ctx.json) printJson(ctx.io, result);
    else
      ctx.io.stdout.write(
        `redriven ${result.dead_letter_id}: run ${result.run_id} attempt ${result.attempt}\n`,
      );
    return 0;
  },
};

export const runCommands: Command[] = [runsList, runsGet, runsRetry, dlqList, dlqRedrive];
