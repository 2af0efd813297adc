// Limits: the tenant's limits, and the state of a flow-control key it names.
import { Hono } from "hono";
import { callApi } from "../api";
import type { ConsoleEnv } from "../env";
import { renderPage } from "../page";
import { type FlowStateView, LimitsPage, type TenantLimitsView } from "../pages/limits";

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
  const keys = await callApi<{ data: FlowStateView[] }>(c, "GET", "/v1/flow-control?limit=50");
  return renderPage(
    c,
    { title: "Limits", active: "limits", autoRefresh: true },
    <LimitsPage
      limits={limits?.ok ? limits.data : null}
      limitsProblem={limits && !limits.ok ? limits.problem : undefined}
      flowKey={flowKey}
      flow={flow?.ok ? flow.data : null}
      flowProblem={flow && !flow.ok ? flow.problem : undefined}
      keys={keys.ok ? keys.data.data : []}
    />,
  );
});
