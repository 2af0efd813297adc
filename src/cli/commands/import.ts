// `edgecron import jobs.jsonl`: one job per line, created through the batch API in chunks.
import { readFile } from "node:fs/promises";
import {
  EdgecronNetworkError,
  EdgecronProblemError,
  type FieldError,
  type JobCreate,
  MAX_BATCH_SIZE,
} from "../../client/index";
import { type Command, type Context, intFlag, printJson } from "../context";
import { createProgress } from "../progress";

export interface ParsedLine {
  line: number;
  job: JobCreate;
}

export interface ImportFailure {
  line: number;
  title: string;
  errors: FieldError[];
}

/** Splits JSONL into jobs with their 1-based line numbers; blank lines are skipped. */
export function parseJsonl(text: string): { jobs: ParsedLine[]; failures: ImportFailure[] } {
  const jobs: ParsedLine[] = [];
  const failures: ImportFailure[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    if (raw.trim() === "") return;
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw new Error("expected a JSON object");
      jobs.push({ line: index + 1, job: value as JobCreate });
    } catch (error) {
      failures.push({ line: index + 1, title: `invalid JSON: ${(error as Error).message}`, errors: [] });
    }
  });
  return { jobs, failures };
}

/**
 * Field paths of a batch item are rooted at the request (`jobs.3.schedule.every`, 3 being the
 * index in the chunk); the line number already says which job, so paths start at the job.
 */
function lineErrors(item: { index: number; error: { errors?: FieldError[] } }): FieldError[] {
  const prefix = `jobs.${item.index}.`;
  return (item.error.errors ?? []).map((error) =>
    error.path.startsWith(prefix) ? { ...error, path: error.path.slice(prefix.length) } : error,
  );
}

/** Auth and connectivity failures stop the import: every later chunk would fail the same way. */
function isFatal(error: unknown): boolean {
  return (
    error instanceof EdgecronNetworkError ||
    (error instanceof EdgecronProblemError && [401, 403].includes(error.status))
  );
}

async function sendChunks(ctx: Context, jobs: ParsedLine[], chunkSize: number, failures: ImportFailure[]) {
  const progress = createProgress(ctx.io, jobs.length, !ctx.json);
  let created = 0;
  for (let start = 0; start < jobs.length; start += chunkSize) {
    const chunk = jobs.slice(start, start + chunkSize);
    try {
      const result = await ctx.client().jobs.createBatch(chunk.map((item) => item.job));
      for (const item of result.results) {
        if ("job" in item) created++;
        else
          failures.push({
            line: chunk[item.index]?.line ?? 0,
            title: item.error.title,
            errors: lineErrors(item),
          });
      }
    } catch (error) {
      if (!(error instanceof EdgecronProblemError || error instanceof EdgecronNetworkError)) throw error;
      const title =
        error instanceof EdgecronProblemError ? `${error.problem.title} (${error.status})` : error.message;
      const errors = error instanceof EdgecronProblemError ? error.errors : [];
      for (const item of chunk) failures.push({ line: item.line, title, errors });
      if (isFatal(error)) {
        for (const item of jobs.slice(start + chunkSize))
          failures.push({ line: item.line, title: "not sent", errors: [] });
        progress.done(created, failures.length);
        ctx.io.stderr.write(`import stopped: ${error.message}\n`);
        return created;
      }
    }
    progress.update(Math.min(start + chunkSize, jobs.length), created, failures.length);
  }
  progress.done(created, failures.length);
  return created;
}

export const importCommand: Command = {
  path: ["import"],
  args: "<jobs.jsonl> [--chunk <n>]",
  summary: "bulk-create jobs from a JSON Lines file (one job body per line)",
  details: [
    "Creates through POST /v1/jobs/batch in chunks of 1000 (--chunk to lower it); prints how",
    "many were created and, for each failure, its line number and field errors. Exit 1 if any failed.",
  ],
  options: { chunk: { type: "string" } },
  positionals: [1, 1],
  async run(ctx) {
    const path = ctx.positionals[0] ?? "";
    const chunkSize = intFlag(ctx.values, "chunk", { min: 1, max: MAX_BATCH_SIZE }) ?? MAX_BATCH_SIZE;
    const { jobs, failures } = parseJsonl(await readFile(path, "utf8"));
    const created = await sendChunks(ctx, jobs, chunkSize, failures);
    failures.sort((a, b) => a.line - b.line);
    if (ctx.json) {
      printJson(ctx.io, { created, failed: failures.length, failures });
    } else {
      ctx.io.stdout.write(`created ${created}, failed ${failures.length}\n`);
      for (const failure of failures) {
        ctx.io.stdout.write(`line ${failure.line}: ${failure.title}\n`);
        for (const error of failure.errors) ctx.io.stdout.write(`  ${error.path}: ${error.message}\n`);
      }
    }
    return failures.length > 0 ? 1 : 0;
  },
};
