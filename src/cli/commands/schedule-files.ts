// `edgecron plan -f schedules.yaml`, `edgecron apply -f schedules.yaml [--prune] [--yes]` and
// `edgecron schema`: schedules as code (docs/SCHEDULES-AS-CODE.md). The API plans and applies
// (POST /v1/plans, POST /v1/applies); the CLI reads the file, cuts it into pages, names every
// mistake at its line, shows the plan, and asks before it changes anything.
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { createInterface } from "node:readline/promises";
import { EdgecronProblemError, type ScheduleFilePlan } from "../../client/index";
import { scheduleFileJsonSchema } from "../../core/schedule-file/json-schema";
import { type Command, type Context, printJson, stringFlag, UsageError } from "../context";
import { filePath, hasChanges, mergePlans, type Page, pagesOf, planPagesOf } from "../schedule-file-pages";
import { type FileProblem, formatProblem, parseScheduleFile } from "../schedule-file-parse";
import { renderPlan } from "../schedule-file-render";

/** Exit codes CI can branch on: `plan` answers 2 when apply would change something. */
const EXIT = { ok: 0, error: 1, changes: 2 } as const;

interface LoadedFile {
  name: string;
  pages: Page[];
  managedBy: string;
  locate(path: string): FileProblem["at"];
}

/** A mistake the command reports itself (exit 1): a file that cannot be read or parsed. */
class FileError extends Error {}

function printProblems(ctx: Context, fileName: string, problems: FileProblem[], summary: string): void {
  if (ctx.json) {
    printJson(ctx.io, { error: summary, errors: problems });
    return;
  }
  ctx.io.stderr.write(`error: ${summary}\n`);
  for (const problem of problems) ctx.io.stderr.write(`  ${formatProblem(fileName, problem)}\n`);
}

async function loadFile(ctx: Context): Promise<LoadedFile> {
  const path = stringFlag(ctx.values, "file");
  if (path === undefined || path === "") throw new UsageError("give the file: -f schedules.yaml");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new FileError(`cannot read ${path}: ${(error as Error).message}`);
  }
  const name = basename(path);
  const parsed = parseScheduleFile(text);
  if ("problems" in parsed) {
    printProblems(ctx, path, parsed.problems, `${path} is not a schedule file; nothing was changed`);
    throw new FileError("");
  }
  const managedBy = parsed.file.managed_by ?? name;
  const pages = pagesOf({
    managedBy,
    calendars: parsed.file.calendars ?? [],
    jobs: parsed.file.jobs ?? [],
    prune: ctx.values.prune === true,
    adopt: ctx.values.adopt === true,
  });
  return { name: path, pages, managedBy, locate: parsed.locate };
}

/** One line per page on stderr when a file takes several (silent for a file of one request). */
function pageProgress(ctx: Context, verb: string, total: number) {
  return (done: number) => {
    if (total > 1) ctx.io.stderr.write(`${verb} ${done}/${total} requests\n`);
  };
}

/**
 * Every page planned; every problem of every page gathered (with the file's paths and lines)
 * before any is reported, so one run names every bad field of the file.
 */
async function planAll(ctx: Context, file: LoadedFile, pages: readonly Page[]) {
  const answers: { page: Page; plan: ScheduleFilePlan }[] = [];
  const problems: FileProblem[] = [];
  const titles = new Set<string>();
  const progress = pageProgress(ctx, "planned", pages.length);
  for (const page of pages) {
    try {
      answers.push({ page, plan: await ctx.client().scheduleFiles.plan(page.request) });
    } catch (error) {
      if (!(error instanceof EdgecronProblemError) || (error.errors ?? []).length === 0) throw error;
      titles.add(error.problem.detail ?? error.problem.title);
      for (const fieldError of error.errors ?? []) {
        const path = filePath(page, fieldError.path);
        problems.push({ path, message: fieldError.message, at: file.locate(path) });
      }
    }
    progress(answers.length + (problems.length > 0 ? 1 : 0));
  }
  if (problems.length > 0) {
    printProblems(ctx, file.name, problems, [...titles].join("; "));
    return null;
  }
  return mergePlans(answers, file.managedBy, ctx.values.prune === true);
}

async function confirmed(ctx: Context): Promise<boolean> {
  if (ctx.values.yes === true) return true;
  if (!process.stdin.isTTY) {
    throw new UsageError("apply changes the tenant: pass --yes to apply without a question (as CI does)");
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await prompt.question("Apply these changes? Only `yes` applies: ");
  prompt.close();
  return answer.trim() === "yes";
}

const fileOptions = {
  file: { type: "string", short: "f" },
  prune: { type: "boolean" },
  adopt: { type: "boolean" },
} as const;

const commonDetails = [
  "-f <file>  the schedule file (YAML or JSON): docs/SCHEDULES-AS-CODE.md",
  "--prune    also delete the jobs and calendars the file manages and no longer holds",
  "--adopt    take over a job or calendar of the same name that no file manages",
];

async function withFileErrors(ctx: Context, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof FileError)) throw error;
    if (error.message !== "") ctx.io.stderr.write(`error: ${error.message}\n`);
    return EXIT.error;
  }
}

export const planCommand: Command = {
  path: ["plan"],
  args: "-f <file> [--prune] [--adopt]",
  summary: "show what apply would create, change and (with --prune) delete for a schedule file",
  details: [...commonDetails, "exit 0: no changes; 2: apply would change something; 1: an error"],
  options: fileOptions,
  positionals: [0, 0],
  usageExitCode: EXIT.error,
  run: (ctx) =>
    withFileErrors(ctx, async () => {
      const file = await loadFile(ctx);
      const plan = await planAll(ctx, file, planPagesOf(file.pages));
      if (plan === null) return EXIT.error;
      const changes = hasChanges(plan);
      if (ctx.json) printJson(ctx.io, { ...plan, changes });
      else ctx.io.stdout.write(renderPlan(plan, file.name, "plan"));
      return changes ? EXIT.changes : EXIT.ok;
    }),
};

export const applyCommand: Command = {
  path: ["apply"],
  args: "-f <file> [--prune] [--adopt] [--yes]",
  summary: "make the tenant what a schedule file says: plan, confirm, apply (a second apply changes nothing)",
  details: [
    ...commonDetails,
    "--yes      apply without asking (CI); without it, a terminal asks and anything else refuses",
    "Nothing is changed unless every entry of the file is valid. exit 0: applied (or nothing to do); 1: an error",
  ],
  options: { ...fileOptions, yes: { type: "boolean", short: "y" } },
  positionals: [0, 0],
  usageExitCode: EXIT.error,
  run: (ctx) =>
    withFileErrors(ctx, async () => {
      const file = await loadFile(ctx);
      const plan = await planAll(ctx, file, planPagesOf(file.pages));
      if (plan === null) return EXIT.error;
      if (!hasChanges(plan)) {
        if (ctx.json) printJson(ctx.io, { ...plan, applied: true });
        else ctx.io.stdout.write(renderPlan(plan, file.name, "plan"));
        return EXIT.ok;
      }
      if (!ctx.json) ctx.io.stdout.write(renderPlan(plan, file.name, "plan"));
      if (!(await confirmed(ctx))) {
        ctx.io.stderr.write("apply cancelled: nothing was changed\n");
        return EXIT.error;
      }
      const answers: { page: Page; plan: ScheduleFilePlan }[] = [];
      const progress = pageProgress(ctx, "applied", file.pages.length);
      for (const page of file.pages) {
        answers.push({ page, plan: await ctx.client().scheduleFiles.apply(page.request) });
        progress(answers.length);
      }
      const applied = mergePlans(
        answers.filter((answer) => answer.page.kind !== "calendars-first" || !ctx.values.prune),
        file.managedBy,
        ctx.values.prune === true,
      );
      if (ctx.json) printJson(ctx.io, { ...applied, applied: true });
      else ctx.io.stdout.write(renderPlan(applied, file.name, "applied"));
      return EXIT.ok;
    }),
};

export const schemaCommand: Command = {
  path: ["schema"],
  args: "",
  summary: "print the JSON Schema of a schedule file (for editors: docs/SCHEDULES-AS-CODE.md)",
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    printJson(ctx.io, scheduleFileJsonSchema());
    return EXIT.ok;
  },
};

export const scheduleFileCommands: Command[] = [planCommand, applyCommand, schemaCommand];
