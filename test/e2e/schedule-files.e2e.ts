// Schedules as code, walked as a new user walks it against a real `wrangler dev`: the example file
// (20 jobs, 2 calendars) planned and applied with the CLI, a job edited in the console, the edit
// shown as drift, the file changed and pruned; then the documented CI workflow's steps, run as
// written (docs/SCHEDULES-AS-CODE.md).
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "./harness";
import { useScheduler } from "./scheduler-fixture";

const fixture = useScheduler({ tenant: "schedules-walk" });
// Inside the repository, so `npx edgecron` (the workflow's command) finds this package's CLI.
const DIR = join(ROOT, ".docs-run", `schedules-${process.pid}`);
const FILE = join(DIR, "schedules.yaml");
const EXAMPLE = join(ROOT, "docs", "examples", "schedules.yaml");
const WORKFLOW = join(ROOT, "docs", "examples", "schedules-workflow.yml");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: DIR,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        EDGECRON_URL: fixture.server.baseUrl,
        EDGECRON_TOKEN: fixture.tenantKey,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const edgecron = (...args: string[]) => run(process.execPath, [join(ROOT, "bin", "edgecron.mjs"), ...args]);

interface PlanJson {
  changes: boolean;
  summary: { jobs: Record<string, number>; calendars: Record<string, number> };
  jobs: { action: string; name: string; changes?: { path: string; before?: unknown; after?: unknown }[] }[];
}

/** A console session over HTTP, as a browser keeps it: cookies and the forms' CSRF fields. */
class ConsoleSession {
  readonly cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  async send(path: string, form?: Record<string, string>) {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const index = pair.indexOf("=");
      this.cookies.set(pair.slice(0, index), pair.slice(index + 1));
    }
    return { status: res.status, text: await res.text() };
  }

  async login(key: string) {
    const page = await this.send("/console/login");
    const res = await this.send("/console/login", {
      ...formFields(page.text, "/console/login"),
      api_key: key,
    });
    expect(res.status).toBe(303);
  }
}

const decode = (text: string) =>
  text
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

/** What a browser would submit of the form posting to `action`: inputs, checked boxes, selects, textareas. */
function formFields(html: string, action: string): Record<string, string> {
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)];
  const form = forms.find(([, open = ""]) => attribute(open, "action") === action)?.[2] ?? "";
  const fields: Record<string, string> = {};
  for (const [tag] of form.matchAll(/<input\b[^>]*>/gi)) {
    const name = attribute(tag, "name");
    const type = attribute(tag, "type") ?? "text";
    if (name === undefined || (["checkbox", "radio"].includes(type) && !/\schecked\b/.test(tag))) continue;
    fields[name] = decode(attribute(tag, "value") ?? (type === "checkbox" ? "on" : ""));
  }
  for (const [, open = "", body = ""] of form.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/gi)) {
    const name = attribute(open, "name");
    const selected =
      /<option\b[^>]*\sselected\b[^>]*>/i.exec(body)?.[0] ?? /<option\b[^>]*>/i.exec(body)?.[0];
    if (name !== undefined && selected !== undefined)
      fields[name] = decode(attribute(selected, "value") ?? "");
  }
  for (const [, open = "", body = ""] of form.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/gi)) {
    const name = attribute(open, "name");
    if (name !== undefined) fields[name] = decode(body);
  }
  return fields;
}

beforeAll(() => {
  mkdirSync(DIR, { recursive: true });
  copyFileSync(EXAMPLE, FILE);
});
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

describe("schedules as code, end to end", () => {
  it("plans, applies, shows a console edit as drift, and applies a changed file with prune", async () => {
    const first = await edgecron("plan", "-f", "schedules.yaml");
    expect(first.code, first.stderr).toBe(2);
    expect(first.stdout).toContain("jobs: 20 to create");
    expect(first.stdout).toContain("calendars: 2 to create");
    const applied = await edgecron("apply", "-f", "schedules.yaml", "--yes");
    expect(applied.code, applied.stderr).toBe(0);
    const again = await edgecron("plan", "-f", "schedules.yaml");
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining("20 unchanged")]);

    const jobs = await fixture.api<{ data: { id: string; name: string; managed_by: string | null }[] }>(
      "GET",
      "/v1/jobs?name=nightly-report",
    );
    const report = jobs.body.data[0];
    expect(report?.managed_by).toBe("schedules.yaml");
    const session = new ConsoleSession(fixture.server.baseUrl);
    await session.login(fixture.tenantKey);
    // The console says who manages the job, and warns before the edit.
    const detail = await session.send(`/console/jobs/${report?.id}`);
    expect(detail.text).toContain("Managed by <strong>schedules.yaml</strong>");
    const edit = await session.send(`/console/jobs/${report?.id}/edit`);
    expect(edit.text).toContain("Managed by <strong>schedules.yaml</strong>");
    const saved = await session.send(`/console/jobs/${report?.id}/edit`, {
      ...formFields(edit.text, `/console/jobs/${report?.id}/edit`),
      "schedule.expr": "0 4 * * *",
    });
    expect(saved.status, saved.text.slice(0, 2000)).toBe(303);

    const drift = await edgecron("plan", "-f", "schedules.yaml", "--json");
    expect(drift.code, drift.stderr).toBe(2);
    expect((JSON.parse(drift.stdout) as PlanJson).jobs).toEqual([
      expect.objectContaining({
        action: "update",
        name: "nightly-report",
        changes: [{ path: "schedule.expr", before: "0 4 * * *", after: "0 3 * * *" }],
      }),
    ]);

    // The file drops two jobs and changes one; prune deletes the two, and the edit is undone.
    const changed = readFileSync(FILE, "utf8")
      .replace(/ {2}- name: stale-carts[\s\S]*$/, "")
      .replace(/ {2}- name: trial-reminders\n[^\n]*\n[^\n]*\n/, "")
      .replace("max_attempts: 3 }", "max_attempts: 4 }");
    writeFileSync(FILE, changed);
    const pruning = await edgecron("plan", "-f", "schedules.yaml", "--prune", "--json");
    expect(pruning.code, pruning.stderr).toBe(2);
    expect((JSON.parse(pruning.stdout) as PlanJson).summary.jobs).toEqual({
      create: 0,
      update: 2,
      adopt: 0,
      delete: 2,
      unchanged: 16,
    });
    const pruned = await edgecron("apply", "-f", "schedules.yaml", "--prune", "--yes");
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain("- job stale-carts");
    const settled = await edgecron("plan", "-f", "schedules.yaml", "--prune");
    expect([settled.code, settled.stdout]).toEqual([0, expect.stringContaining("18 unchanged")]);
  });

  it("runs the documented CI workflow's steps as written: plan on a pull request, apply on main", async () => {
    const workflowText = readFileSync(WORKFLOW, "utf8");
    expect(readFileSync(join(ROOT, "docs", "SCHEDULES-AS-CODE.md"), "utf8")).toContain(workflowText);
    const workflow = parse(workflowText) as {
      jobs: Record<string, { env: Record<string, string>; steps: { run?: string }[] }>;
    };
    const values: Record<string, string> = {
      "vars.EDGECRON_URL": fixture.server.baseUrl,
      "secrets.EDGECRON_TOKEN": fixture.tenantKey,
    };
    // The runner's own setup (checkout, Node, npm ci) is what this checkout already is.
    const steps = (job: string) => {
      const { env, steps: all } = workflow.jobs[job] ?? { env: {}, steps: [] };
      const resolved = Object.fromEntries(
        Object.entries(env).map(([name, value]) => [
          name,
          value.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_match, key: string) => values[key] ?? ""),
        ]),
      );
      return all
        .filter((step) => step.run !== undefined && step.run.trim() !== "npm ci")
        .map((step) => ({ script: step.run ?? "", env: resolved }));
    };
    writeFileSync(
      FILE,
      `${readFileSync(FILE, "utf8")}  - name: ci-added\n    schedule: { type: cron, expr: "0 1 * * *", timezone: UTC }\n    target: { url: https://example.com/hooks/ci }\n`,
    );
    for (const job of ["plan", "apply"]) {
      for (const step of steps(job)) {
        const result = await run(
          "bash",
          ["--noprofile", "--norc", "-eo", "pipefail", "-c", step.script],
          step.env,
        );
        expect(result.code, `${job}: ${step.script}\n${result.stderr}`).toBe(0);
        if (job === "plan") expect(result.stdout).toContain("+ job ci-added");
      }
    }
    const after = await edgecron("plan", "-f", "schedules.yaml", "--prune");
    expect([after.code, after.stdout]).toEqual([0, expect.stringContaining("19 unchanged")]);
  });
});
