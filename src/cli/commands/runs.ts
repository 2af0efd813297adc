import type { DeadLetter, Run, RunState } from "../../client/index";
import { RUN_STATES } from "../../core/runs/run-state";
import { type Command, filterFlag, printJson } from "../context";
import { oneOfFlag, PAGE_OPTIONS, pageParams, printList } from "../list-command";
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

const runsList: Command = {
  path: ["runs", "list"],
  args: "[--job <job-id>] [--state <STATE>] [--limit <n>] [--cursor <c>] [--all]",
  summary: "run history, newest first (one job's with --job)",
  options: { job: { type: "string" }, state: { type: "string" }, ...PAGE_OPTIONS },
  positionals: [0, 0],
  async run(ctx) {
    const state = oneOfFlag(ctx.values, "state", STATES, (value) => value.toUpperCase());
    const params = { job_id: filterFlag(ctx.values, "job"), state, ...pageParams(ctx.values) };
    return printList(ctx, ctx.client().runs, params, RUN_COLUMNS, "no runs");
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
  options: { job: { type: "string" }, ...PAGE_OPTIONS },
  positionals: [0, 0],
  async run(ctx) {
    const params = { job_id: filterFlag(ctx.values, "job"), ...pageParams(ctx.values) };
    return printList(ctx, ctx.client().deadLetters, params, DEAD_LETTER_COLUMNS, "no dead letters");
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
