// Alerts an operator can act on: acknowledged and resolved over the API (tenant-scoped,
// idempotent), listed by state, resolved by the system when a missed run's job fires again, and
// never stamped "delivered" when there was nowhere to send them.

import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { loseShardAlarm } from "../../src/service/fault-injection";
import { raiseAlerts } from "../../src/service/raise-alerts";
import { shardOfJob } from "../../src/shard/client";
import { disarmShardsAfterEach, maintenanceStub } from "../helpers/alarms";
import { api, createTenantWithKey } from "../helpers/api";
import {
  historyOf,
  placeJob,
  seedTenant,
  snapshot,
  spec,
  stubFor,
  TENANT_ID,
  targetCalls,
  targetUrl,
  uniqueJobId,
  WAIT,
} from "../helpers/scheduling";
import { seedAlert, seedRun } from "../helpers/seed";
import { inShardTables } from "../helpers/shard-state";

// The missed-run test leaves its recovered job scheduled: delete the alarms after each test.
disarmShardsAfterEach();

interface Alert {
  id: string;
  kind: string;
  state: "open" | "acknowledged" | "resolved";
  delivery: "pending" | "delivered" | "failed" | "none";
  delivered_at: string | null;
  delivery_error: string | null;
  acknowledged_at: string | null;
  resolved_at: string | null;
  resolution: string | null;
}

async function alertRow(id: string) {
  return env.DB.prepare("SELECT * FROM alerts WHERE id = ?").bind(id).first<Record<string, unknown>>();
}

describe("POST /v1/alerts/{id}/ack and /resolve", () => {
  it("acknowledges then resolves an alert; repeating either changes nothing", async () => {
    const t = await createTenantWithKey("alerts-act");
    const id = await seedAlert({ tenantId: t.tenantId, kind: "dead_lettered" });

    const acked = await api<Alert>("POST", `/v1/alerts/${id}/ack`, { token: t.key });
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({ id, state: "acknowledged", resolved_at: null, resolution: null });
    expect(acked.body.acknowledged_at).not.toBeNull();
    const again = await api<Alert>("POST", `/v1/alerts/${id}/ack`, { token: t.key });
    expect(again.body).toEqual(acked.body);

    const resolved = await api<Alert>("POST", `/v1/alerts/${id}/resolve`, { token: t.key });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      id,
      state: "resolved",
      resolution: "operator",
      acknowledged_at: acked.body.acknowledged_at,
    });
    expect(resolved.body.resolved_at).not.toBeNull();
    expect((await api<Alert>("POST", `/v1/alerts/${id}/resolve`, { token: t.key })).body).toEqual(
      resolved.body,
    );
    // Acknowledging a resolved alert leaves it resolved.
    expect((await api<Alert>("POST", `/v1/alerts/${id}/ack`, { token: t.key })).body).toEqual(resolved.body);
  });

  it("answers 404 for another tenant's alert exactly as for an unknown one, and leaves it open", async () => {
    const owner = await createTenantWithKey("alerts-owner");
    const other = await createTenantWithKey("alerts-other");
    const id = await seedAlert({ tenantId: owner.tenantId });
    for (const action of ["ack", "resolve"]) {
      const theirs = await api<{ code: string; detail: string }>("POST", `/v1/alerts/${id}/${action}`, {
        token: other.key,
      });
      const nobodys = await api<{ code: string; detail: string }>("POST", `/v1/alerts/alt_nope/${action}`, {
        token: other.key,
      });
      expect(theirs.status).toBe(404);
      expect(theirs.body.code).toBe("alert_not_found");
      expect(theirs.body.detail.replace(id, "<id>")).toBe(nobodys.body.detail.replace("alt_nope", "<id>"));
    }
    expect(await alertRow(id)).toMatchObject({ acknowledged_at_ms: null, resolved_at_ms: null });
  });

  it("lists alerts by state: open, acknowledged, resolved", async () => {
    const t = await createTenantWithKey("alerts-states");
    const open = await seedAlert({ tenantId: t.tenantId });
    const acknowledged = await seedAlert({ tenantId: t.tenantId });
    const resolved = await seedAlert({ tenantId: t.tenantId });
    await api("POST", `/v1/alerts/${acknowledged}/ack`, { token: t.key });
    await api("POST", `/v1/alerts/${resolved}/ack`, { token: t.key });
    await api("POST", `/v1/alerts/${resolved}/resolve`, { token: t.key });
    const idsOf = async (query: string) =>
      (await api<{ data: Alert[] }>("GET", `/v1/alerts${query}`, { token: t.key })).body.data.map(
        (alert) => alert.id,
      );
    expect(await idsOf("?state=open")).toEqual([open]);
    expect(await idsOf("?state=acknowledged")).toEqual([acknowledged]);
    expect(await idsOf("?state=resolved")).toEqual([resolved]);
    expect((await idsOf("")).sort()).toEqual([open, acknowledged, resolved].sort());
    const bad = await api<{ errors: { path: string }[] }>("GET", "/v1/alerts?state=closed&kind=nope", {
      token: t.key,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error) => error.path).sort()).toEqual(["kind", "state"]);
  });
});

describe("alert delivery", () => {
  it("records none for an alert with nowhere to go, delivered or failed for one with a webhook", async () => {
    const quiet = `ten_alerts_quiet_${Date.now().toString(36)}`;
    const hooked = `ten_alerts_hooked_${Date.now().toString(36)}`;
    const broken = `ten_alerts_broken_${Date.now().toString(36)}`;
    const insert = env.DB.prepare(
      "INSERT INTO tenants (id, name, signing_secret, alert_webhook_url, created_at_ms) VALUES (?, ?, ?, ?, ?)",
    );
    await env.DB.batch([
      insert.bind(quiet, "quiet", "c".repeat(64), null, Date.now()),
      insert.bind(hooked, "hooked", "c".repeat(64), targetUrl(`/ok/alert-hook/${hooked}`), Date.now()),
      insert.bind(
        broken,
        "broken",
        "c".repeat(64),
        targetUrl(`/status/500/alert-hook/${broken}`),
        Date.now(),
      ),
    ]);
    const alertOf = (tenantId: string) => ({
      tenantId,
      jobId: null,
      runId: null,
      kind: "missed_run" as const,
      dedupKey: `delivery-test:${tenantId}`,
      message: "a test alert",
      details: {},
    });
    await raiseAlerts(env, [alertOf(quiet), alertOf(hooked), alertOf(broken)]);
    const deliveryOf = (tenantId: string) =>
      env.DB.prepare("SELECT delivery, delivered_at_ms, delivery_error FROM alerts WHERE tenant_id = ?")
        .bind(tenantId)
        .first<{ delivery: string; delivered_at_ms: number | null; delivery_error: string | null }>();

    expect(await deliveryOf(quiet)).toEqual({
      delivery: "none",
      delivered_at_ms: null,
      delivery_error: null,
    });
    // Delivery happens on the side-delivery queue, after raiseAlerts returned.
    await vi.waitFor(
      async () =>
        expect(await deliveryOf(hooked)).toMatchObject({ delivery: "delivered", delivery_error: null }),
      WAIT,
    );
    expect((await deliveryOf(hooked))?.delivered_at_ms).toEqual(expect.any(Number));
    await vi.waitFor(
      async () =>
        expect(await deliveryOf(broken)).toMatchObject({ delivery: "failed", delivered_at_ms: null }),
      WAIT,
    );
    expect((await deliveryOf(broken))?.delivery_error).toContain("HTTP 500");
    expect(await targetCalls(`/ok/alert-hook/${hooked}`)).toHaveLength(1);
  });
});

/** A job of the hourly kind the alerts below name (paused: its own schedule stays out of the way). */
function hourlyJob(jobId: string) {
  return spec({
    schedule: { type: "cron", expr: "0 * * * *", timezone: "UTC" },
    target: { url: targetUrl(`/ok/${jobId}`) },
  });
}

describe("a missed_run alert", () => {
  it("resolves itself once the job's schedule fires again", async () => {
    await seedTenant();
    const jobId = uniqueJobId("missed-resolves");
    const jobSpec = spec({
      schedule: { type: "interval", every: "1h", anchor: new Date(Date.now() + 3_600_000).toISOString() },
      target: { url: targetUrl(`/ok/${jobId}`) },
      alert_after: "1m",
    });
    await placeJob(snapshot(jobId, jobSpec));
    // The instant passed 5 minutes ago and the shard's alarm is gone.
    const missedAtMs = Date.now() - 5 * 60_000;
    await inShardTables(stubFor(jobId), (sql, _storage) => {
      sql.exec(
        "UPDATE jobs SET next_fire_ms = ?, next_scheduled_ms = ? WHERE job_id = ?",
        missedAtMs,
        missedAtMs,
        jobId,
      );
    });
    await loseShardAlarm(env, shardOfJob(env, jobId), 0);
    await maintenanceStub().runNow();
    const raised = await env.DB.prepare("SELECT id, resolved_at_ms FROM alerts WHERE job_id = ?")
      .bind(jobId)
      .first<{ id: string; resolved_at_ms: number | null }>();
    expect(raised?.resolved_at_ms).toBeNull();

    // The watchdog re-armed the shard: the missed instant fires and reaches the run history.
    await vi.waitFor(async () => expect(await targetCalls(`/ok/${jobId}`)).toHaveLength(1), WAIT);
    await vi.waitFor(async () => expect((await historyOf(jobId))[0]?.state).toBe("SUCCEEDED"), WAIT);
    const summary = await maintenanceStub().runNow();
    expect(summary.alertsResolved).toBeGreaterThanOrEqual(1);
    const listed = await env.DB.prepare("SELECT resolution, resolved_at_ms FROM alerts WHERE id = ?")
      .bind(raised!.id)
      .first<{ resolution: string; resolved_at_ms: number | null }>();
    expect(listed?.resolution).toBe("job_fired_again");
    expect(listed?.resolved_at_ms).toEqual(expect.any(Number));
    await placeJob(snapshot(jobId, jobSpec, 2, "PAUSED"));
  });

  it("stays open while only an earlier instant, a manual trigger or an undispatched run is recorded", async () => {
    await seedTenant();
    const jobId = uniqueJobId("missed-stays");
    await placeJob(snapshot(jobId, hourlyJob(jobId), 1, "PAUSED"));
    const missedAtMs = Date.parse("2026-11-30T10:00:00.250Z");
    const alertId = `alt_missed_stays_${Date.now().toString(36)}`;
    await env.DB.prepare(
      `INSERT INTO alerts (id, tenant_id, job_id, run_id, kind, dedup_key, message, details_json, created_at_ms)
       VALUES (?, ?, ?, NULL, 'missed_run', ?, 'missed', ?, ?)`,
    )
      .bind(
        alertId,
        TENANT_ID,
        jobId,
        alertId,
        JSON.stringify({ scheduled_at: new Date(missedAtMs).toISOString() }),
        Date.now(),
      )
      .run();
    await seedRun({ jobId, tenantId: TENANT_ID, scheduledAtMs: missedAtMs - 3_600_000 });
    await seedRun({ jobId, tenantId: TENANT_ID, scheduledAtMs: missedAtMs + 60_000, kind: "trigger" });
    await seedRun({
      jobId,
      tenantId: TENANT_ID,
      scheduledAtMs: missedAtMs + 3_600_000,
      fence: null,
      state: "SCHEDULED",
    });
    await maintenanceStub().runNow();
    expect(await alertRow(alertId)).toMatchObject({ resolved_at_ms: null, resolution: null });

    // The missed instant itself, fired late (to the millisecond): now it resolves.
    await seedRun({ jobId, tenantId: TENANT_ID, scheduledAtMs: missedAtMs });
    await maintenanceStub().runNow();
    expect(await alertRow(alertId)).toMatchObject({ resolution: "job_fired_again" });
  });

  it("that names a waiting run stays open until that run is claimed, whatever later instants fire", async () => {
    await seedTenant();
    const jobId = uniqueJobId("missed-names-run");
    await placeJob(snapshot(jobId, hourlyJob(jobId), 1, "PAUSED"));
    const missedAtMs = Date.parse("2026-11-30T11:00:00.000Z");
    const alertId = `alt_missed_run_${Date.now().toString(36)}`;
    const waitingRunId = await seedRun({
      jobId,
      tenantId: TENANT_ID,
      scheduledAtMs: missedAtMs,
      fence: null,
      state: "SCHEDULED",
    });
    await env.DB.prepare(
      `INSERT INTO alerts (id, tenant_id, job_id, run_id, kind, dedup_key, message, details_json, created_at_ms)
       VALUES (?, ?, ?, ?, 'missed_run', ?, 'missed', ?, ?)`,
    )
      .bind(
        alertId,
        TENANT_ID,
        jobId,
        waitingRunId,
        alertId,
        JSON.stringify({ scheduled_at: new Date(missedAtMs).toISOString() }),
        Date.now(),
      )
      .run();
    // A later instant went out while the named run waits (an overlap buffer, say): still open.
    await seedRun({ jobId, tenantId: TENANT_ID, scheduledAtMs: missedAtMs + 60_000 });
    await maintenanceStub().runNow();
    expect(await alertRow(alertId)).toMatchObject({ resolved_at_ms: null, resolution: null });

    // The named run is claimed: now it resolves.
    await seedRun({ jobId, tenantId: TENANT_ID, scheduledAtMs: missedAtMs, state: "RUNNING", fence: 9 });
    await maintenanceStub().runNow();
    expect(await alertRow(alertId)).toMatchObject({ resolution: "job_fired_again" });
  });
});
