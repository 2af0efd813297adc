// The served OpenAPI document is valid, and a standard generator (openapi-typescript) turns it
// into types that the README's 60-second tour compiles against. The app is bundled and asked
// for /v1/openapi.json in-process: the document it serves, not a copy.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Validator } from "@seriousme/openapi-schema-validator";
import { build } from "esbuild";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
let workDir = "";
let served: Record<string, unknown> = {};

async function servedDocument(): Promise<Record<string, unknown>> {
  const bundle = join(workDir, "app.mjs");
  await build({
    entryPoints: [join(ROOT, "src", "api", "app.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: bundle,
    logLevel: "silent",
  });
  const { app } = (await import(bundle)) as { app: { request: (path: string) => Promise<Response> } };
  const res = await app.request("/v1/openapi.json");
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "edgecron-openapi-"));
  served = await servedDocument();
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("GET /v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(served) as never)).resolves.toBeDefined();
    expect(served.openapi).toBe("3.1.0");
  });

  it("is valid against the OpenAPI 3.1 JSON schema too (a second, independent validator)", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(served) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("names every operation and gives every success a schema", () => {
    const paths = served.paths as Record<string, Record<string, OperationDoc>>;
    const operations = Object.values(paths).flatMap((item) => Object.values(item));
    expect(operations.length).toBeGreaterThanOrEqual(31);
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations) {
      expect(operation.operationId, JSON.stringify(operation.summary)).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operation.tags?.length, operation.operationId).toBeGreaterThan(0);
      const successes = Object.entries(operation.responses).filter(([status]) => status.startsWith("2"));
      // One success each, but for the bulk call: done (200) or going on after the answer (202).
      const expected = operation.operationId === "bulkJobs" ? ["200", "202"] : [successes[0]?.[0]];
      expect(
        successes.map(([status]) => status),
        operation.operationId,
      ).toEqual(expected);
      for (const [, response] of successes) {
        expect(response.content?.["application/json"]?.schema, operation.operationId).toBeDefined();
      }
    }
  });

  it("generates types (openapi-typescript) that the README's tour compiles against", async () => {
    const types = astToString(
      // A default makes a field optional to send: the generator's default would make it required.
      await openapiTS(served as never, { defaultNonNullable: false }),
    );
    await writeFile(join(workDir, "api.d.ts"), types);
    await writeFile(join(workDir, "tour.ts"), TOUR);
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const flags = ["--noEmit", "--strict", "--noUncheckedIndexedAccess", "--target", "es2022"];
    const options = ["--module", "esnext", "--moduleResolution", "bundler", "--skipLibCheck"];
    const run = promisify(execFile)(process.execPath, [tsc, ...flags, ...options, join(workDir, "tour.ts")]);
    const errors = await run.then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(errors).toBe("");
  });
});

interface OperationDoc {
  operationId?: string;
  summary?: string;
  tags?: string[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** The README's 60-second tour, against the generated `paths`. `@ts-expect-error` proves the types bite. */
const TOUR = `
import type { paths } from "./api";

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: infer R }
  ? Json<NonNullable<R>>
  : never;
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: infer R;
}
  ? S extends keyof R
    ? Json<R[S]>
    : never
  : never;
type ProblemOf<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: infer R;
}
  ? S extends keyof R
    ? R[S] extends { content: { "application/problem+json": infer B } }
      ? B
      : never
    : never
  : never;
declare function send<P extends keyof paths, M extends keyof paths[P], S extends number>(
  method: M,
  path: P,
  status: S,
  body?: Body<P, M>,
): Promise<Answer<P, M, S>>;

export async function tour(): Promise<void> {
  // 1. A tenant and an API key.
  const tenant = await send("post", "/v1/tenants", 201, { name: "acme" });
  const key = await send("post", "/v1/api-keys", 201, { tenant_id: tenant.id });
  const token: string = key.key;
  // @ts-expect-error a tenant has no such field
  await send("post", "/v1/tenants", 201, { nmae: "acme" });

  // 2. When would a schedule fire?
  const preview = await send("post", "/v1/schedules/preview", 200, {
    schedule: { type: "cron", expr: "30 2 * * *", timezone: "America/New_York" },
    from: "2027-03-13T00:00:00Z",
    count: 3,
  });
  const first: string | undefined = preview.fire_times[0];

  // 3. A job that calls a local endpoint every 10 seconds.
  const job = await send("post", "/v1/jobs", 201, {
    name: "tour",
    schedule: { type: "cron", expr: "*/10 * * * * *", timezone: "UTC" },
    target: { url: "http://127.0.0.1:9000/hook", method: "POST", body: { hello: "world" } },
  });
  const jobId: string = job.id;
  const upcoming: string[] = job.next_fire_times;

  // 4. Its runs, newest first, each with its state history; then pause it.
  const runs = await send("get", "/v1/jobs/{id}/runs", 200);
  const state: "SCHEDULED" | "ACQUIRED" | "DISPATCHED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "RETRYING"
    | "DEAD_LETTERED" | "SKIPPED" | "CANCELLED" | undefined = runs.data[0]?.state;
  const next: string | null = runs.next_cursor;
  const paused = await send("post", "/v1/jobs/{id}/pause", 200);
  const status: "ACTIVE" | "PAUSED" | "COMPLETED" | "DELETED" = paused.status;

  // Errors: the code is the catalogue's union, not any string.
  const problem = {} as ProblemOf<"/v1/jobs/{id}/pause", "post", 409>;
  const code: string = problem.code;
  // @ts-expect-error not a code the API sends
  const wrong: typeof problem.code = "no_such_code";
  console.log(token, first, jobId, upcoming, state, next, status, code, wrong);
}
`;
