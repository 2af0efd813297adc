// What a long-running target's shell script reports back with: `runs heartbeat` and
// `runs complete` authenticate with the run token the call carried (--run-token), so they need
// no API key.
import type { RunCompletion } from "../../client/index";
import { type Command, type FlagValues, printJson, stringFlag, UsageError } from "../context";

const runTokenOption = { "run-token": { type: "string" } } as const;

function runTokenOf(values: FlagValues): string {
  const token = stringFlag(values, "run-token");
  if (!token) throw new UsageError("--run-token is required: the Edgecron-Run-Token header of the call");
  return token;
}

function resultOf(values: FlagValues): unknown {
  const text = stringFlag(values, "result");
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError("--result must be JSON, e.g. --result '{\"rows\": 1200}'");
  }
}

const runsHeartbeat: Command = {
  path: ["runs", "heartbeat"],
  args: "<run-id> --run-token <token>",
  summary: "a long-running target is still working: extend the run's lease",
  options: runTokenOption,
  positionals: [1, 1],
  async run(ctx) {
    const result = await ctx.client().runs.heartbeat(ctx.positionals[0] ?? "", runTokenOf(ctx.values));
    if (ctx.json) printJson(ctx.io, result);
    else ctx.io.stdout.write(`lease of ${result.run_id} extended to ${result.lease_expires_at}\n`);
    return 0;
  },
};

const runsComplete: Command = {
  path: ["runs", "complete"],
  args: "<run-id> --run-token <token> [--failed [--error <msg>] [--permanent]] [--result <json>]",
  summary: "a long-running target reports the run's end",
  details: ["--failed reports a failure (retried under the job's retry policy unless --permanent)."],
  options: {
    ...runTokenOption,
    failed: { type: "boolean" },
    error: { type: "string" },
    permanent: { type: "boolean" },
    result: { type: "string" },
  },
  positionals: [1, 1],
  async run(ctx) {
    const failed = ctx.values.failed === true;
    if (!failed && (ctx.values.error !== undefined || ctx.values.permanent !== undefined)) {
      throw new UsageError("--error and --permanent go with --failed");
    }
    const completion: RunCompletion = { status: failed ? "failed" : "succeeded" };
    const result = resultOf(ctx.values);
    if (result !== undefined) completion.result = result;
    const error = stringFlag(ctx.values, "error");
    if (error !== undefined) completion.error = error;
    if (ctx.values.permanent === true) completion.retryable = false;
    const outcome = await ctx
      .client()
      .runs.complete(ctx.positionals[0] ?? "", runTokenOf(ctx.values), completion);
    if (ctx.json) printJson(ctx.io, outcome);
    else ctx.io.stdout.write(`${outcome.run_id} attempt ${outcome.attempt}: ${outcome.state}\n`);
    return 0;
  },
};

export const runCallbackCommands: Command[] = [runsHeartbeat, runsComplete];
