// The target policy as a deployment sets it: local mode (this suite's ALLOW_PRIVATE_TARGETS "true",
// what `npm start` runs by default) and the production policy with an allow-list (what
// `EDGECRON_TARGET_POLICY=production EDGECRON_ALLOWED_TARGETS=... npm start` runs), at the API and
// on the console's footer, which says which one is in force.
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { disarmShardsAfterEach } from "../helpers/alarms";
import { ADMIN_TOKEN, BASE, createTenantWithKey, jobBody } from "../helpers/api";
import { ConsoleClient } from "../helpers/console-client";

// Accepted jobs are placed on their shards: delete the alarms after each test.
disarmShardsAfterEach();

const PRODUCTION_WITH_ALLOW_LIST: Env = {
  ...env,
  ALLOW_PRIVATE_TARGETS: "false",
  PRIVATE_TARGET_ALLOW_LIST: "127.0.0.1:9000, db:5432, not/a-host",
};

interface Problem {
  status: number;
  code: string;
  errors?: { path: string; message: string }[];
}

async function send<T = Problem>(workerEnv: Env, method: string, path: string, token: string, body: unknown) {
  const request = new Request<unknown, IncomingRequestCfProperties>(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const res = await worker.fetch(request, workerEnv, createExecutionContext());
  return { status: res.status, body: (await res.json()) as T };
}

let tenantKey = "";
beforeAll(async () => {
  tenantKey = (await createTenantWithKey("target-policy")).key;
});

describe("the production policy with an allow-list", () => {
  const create = (url: string) =>
    send(PRODUCTION_WITH_ALLOW_LIST, "POST", "/v1/jobs", tenantKey, jobBody({ target: { url } }));

  it("accepts exactly the hosts and ports it names", async () => {
    for (const url of ["http://127.0.0.1:9000/hook", "http://db:5432/hook"]) {
      expect((await create(url)).status, url).toBe(201);
    }
  });

  it("refuses everything else production refuses, naming the target (metadata, other ports, single labels)", async () => {
    const refused: [string, RegExp][] = [
      ["http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254/],
      ["http://127.0.0.1:9001/hook", /127\.0\.0\.1 is loopback/],
      ["http://localhost:9000/hook", /localhost/],
      ["http://db/hook", /db/],
      ["http://10.0.0.5/hook", /10\.0\.0\.5/],
    ];
    for (const [url, message] of refused) {
      const res = await create(url);
      expect(res.status, url).toBe(400);
      expect(res.body.errors, url).toEqual([{ path: "target.url", message: expect.stringMatching(message) }]);
    }
  });

  it("applies to on_failure and alert webhooks alike", async () => {
    const job = jobBody({ on_failure: "http://127.0.0.1:9000/failed" });
    expect((await send(PRODUCTION_WITH_ALLOW_LIST, "POST", "/v1/jobs", tenantKey, job)).status).toBe(201);
    const tenant = await send<{ id: string }>(
      PRODUCTION_WITH_ALLOW_LIST,
      "POST",
      "/v1/tenants",
      ADMIN_TOKEN,
      {
        name: "hooks",
        alert_webhook_url: "http://169.254.169.254/alerts",
      },
    );
    expect(tenant.status).toBe(400);
  });
});

describe("the console's footer", () => {
  it("says local mode calls private and metadata addresses, on every page", async () => {
    const client = new ConsoleClient();
    await client.signIn(tenantKey);
    for (const path of ["/console", "/console/jobs", "/console/jobs/new"]) {
      const page = await client.get(path);
      expect(page.text, path).toMatch(
        /<p class="footer-line" data-target-policy="local">Targets: <strong>local mode<\/strong>, any http\(s\) URL is called, private, loopback and cloud-metadata addresses included/,
      );
    }
  });

  it("names the production policy, what its allow-list lets through and the entries it ignored", async () => {
    const client = new ConsoleClient(undefined, PRODUCTION_WITH_ALLOW_LIST);
    await client.signIn(ADMIN_TOKEN);
    const page = await client.get("/console");
    expect(page.status).toBe(200);
    const line = /<p class="footer-line" data-target-policy="production">(.*?)<\/p>/s.exec(page.text)?.[1];
    expect(line).toContain("Targets: <strong>production policy</strong>, private, loopback");
    expect(line).toContain("allowed through it: <code>127.0.0.1:9000, db:5432</code>");
    expect(line).toContain("ignored allow-list entries (not host or host:port): <code>not/a-host</code>");
  });
});
