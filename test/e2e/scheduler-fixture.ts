// The fixture every e2e file starts its scheduler with: a `wrangler dev` process and a local
// target before the file's tests, both stopped after them (and the scheduler's state removed),
// with an admin client and, when asked, a tenant of its own with an API key.
import { afterAll, beforeAll } from "vitest";
import {
  ADMIN_TOKEN,
  type ApiClient,
  apiClient,
  createTenantWithKey,
  removeState,
  type SchedulerProcess,
  type StartOptions,
  startScheduler,
  startTarget,
  type TargetServer,
} from "./harness";

export type { ApiClient };

/** Filled in before the file's tests run (and before the hooks the file registers after it). */
export interface E2eScheduler {
  server: SchedulerProcess;
  target: TargetServer;
  admin: ApiClient;
  /** With `tenant`: the tenant's id and signing secret, its API key, and a client that uses the key. */
  tenantId: string;
  signingSecret: string;
  tenantKey: string;
  api: ApiClient;
}

export interface FixtureOptions extends StartOptions {
  /** Creates a tenant of this name and an API key for it. */
  tenant?: string;
}

/** Registers the file's beforeAll and afterAll; read the fields inside tests or later hooks. */
export function useScheduler(options: FixtureOptions = {}): E2eScheduler {
  const { tenant, ...start } = options;
  const fixture = {} as E2eScheduler;
  beforeAll(async () => {
    [fixture.target, fixture.server] = await Promise.all([startTarget(), startScheduler(start)]);
    fixture.admin = apiClient(fixture.server.baseUrl, ADMIN_TOKEN);
    if (tenant === undefined) return;
    const access = await createTenantWithKey(fixture.server.baseUrl, { name: tenant });
    fixture.tenantId = access.id;
    fixture.signingSecret = access.signingSecret;
    fixture.tenantKey = access.key;
    fixture.api = access.api;
  });
  afterAll(async () => {
    await fixture.server?.stop();
    await fixture.target?.close();
    if (fixture.server) removeState(fixture.server.stateDir);
  });
  return fixture;
}
