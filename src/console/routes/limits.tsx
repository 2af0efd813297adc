// Limits: the tenant's limits, and the state of a flow-control key it names.
import { Hono } from "hono";
import { callApi } from "../api";
import type { ConsoleEnv } from "../env";
import { noticeText } from "../notices";
import { renderPage } from "../page";
import { SuspendTenant } from "../pages/control";
import { type FlowStateView, LimitsPage, type TenantLimitsView } from "../pages/limits";
import type { ThrottledHostView } from "../pages/throttled-hosts";

export const limitsRoutes = new Hono<ConsoleEnv>();

limitsRoutes.get("/limits", async (c) => {
  const session = c.get("session");
  const tenantId = session.tenantId ?? session.actingTenant;
  const limits =
    tenantId === null
      ? null
      : await callApi<TenantLimitsView>(c, "GET", `/v1/tenants/${encodeURIComponent(tenantId)}/limits`);
  const flowKey = (c.req.query("key") ?? "").trim();
  const flow =
    flowKey === ""
      ? null
      : await callApi<FlowStateView>(c, "GET", `/v1/flow-control/${encodeURIComponent(flowKey)}`);
  const keys = await callApi<{ data: FlowStateView[]; hosts: ThrottledHostView[] }>(
    c,
    "GET",
    "/v1/flow-control?limit=50",
  );
  // Only the admin may suspend: it reads the tenant to show whether it is.
  const tenant =
    session.role === "admin" && tenantId !== null
      ? await callApi<{ suspended_at: string | null }>(
          c,
          "GET",
          `/v1/tenants/${encodeURIComponent(tenantId)}`,
        )
      : null;
  return renderPage(
    c,
    { title: "Limits", active: "limits", autoRefresh: true },
    <>
      <LimitsPage
        limits={limits?.ok ? limits.data : null}
        limitsProblem={limits && !limits.ok ? limits.problem : undefined}
        flowKey={flowKey}
        flow={flow?.ok ? flow.data : null}
        flowProblem={flow && !flow.ok ? flow.problem : undefined}
        keys={keys.ok ? keys.data.data : []}
        hosts={keys.ok ? keys.data.hosts : []}
        notice={noticeText(c.req.query("notice"), undefined)}
      />
      {tenant?.ok && tenantId !== null ? (
        <SuspendTenant tenantId={tenantId} suspendedAt={tenant.data.suspended_at} csrf={c.get("csrf")} />
      ) : null}
    </>,
  );
});
