// Bulk job actions and tenant suspension (POST, CSRF-checked like every console action, confirmed
// first); both go through the API in-process.
import { Hono } from "hono";
import { callApi } from "../api";
import { BASE, type ConsoleEnv } from "../env";
import { confirmFirst, renderProblem } from "../page";

export const controlRoutes = new Hono<ConsoleEnv>();

const BULK_STATUSES = new Set(["ACTIVE", "PAUSED", "COMPLETED"]);

controlRoutes.post("/jobs/bulk/:action{pause|resume|delete}", async (c) => {
  const action = c.req.param("action");
  const form = await c.req.parseBody();
  // Every field given is used as given: an empty or unknown one is refused, naming it, never
  // dropped (dropping `status` would act on every status of the name prefix).
  const status = typeof form.status === "string" ? form.status : undefined;
  const name = typeof form.name === "string" ? form.name : undefined;
  const errors = [
    ...(status !== undefined && !BULK_STATUSES.has(status)
      ? [{ path: "status", message: `must be one of ${[...BULK_STATUSES].join(", ")}` }]
      : []),
    ...(name !== undefined && name.trim() === ""
      ? [{ path: "name", message: "must not be empty: an empty filter would select every job" }]
      : []),
  ];
  if (errors.length > 0) {
    return renderProblem(c, `Could not ${action} the matching jobs`, "jobs", {
      title: "Bad Request",
      status: 400,
      detail: errors.map((error) => `${error.path}: ${error.message}`).join("; "),
      errors,
    });
  }
  const confirmation = await confirmFirst(c, `Really ${action} every matching job?`, `${BASE}/jobs`);
  if (confirmation) return confirmation;
  const filter = { ...(status ? { status } : {}), ...(name ? { name_prefix: name } : {}) };
  const result = await callApi<{ matched: number; done: number }>(c, "POST", "/v1/jobs/bulk", {
    body: { action, filter },
  });
  if (!result.ok) return renderProblem(c, `Could not ${action} the matching jobs`, "jobs", result.problem);
  const back = new URLSearchParams({ notice: `bulk_${action}`, count: String(result.data.done) });
  if (status) back.set("status", status);
  if (name) back.set("name", name);
  return c.redirect(`${BASE}/jobs?${back}`, 303);
});

controlRoutes.post("/tenant/:verb{suspend|unsuspend}", async (c) => {
  const verb = c.req.param("verb");
  const confirmation = await confirmFirst(c, `Really ${verb} this tenant?`, `${BASE}/limits`);
  if (confirmation) return confirmation;
  const form = await c.req.parseBody();
  const tenantId = typeof form.tenant_id === "string" ? form.tenant_id : "";
  const result = await callApi(c, "POST", `/v1/tenants/${encodeURIComponent(tenantId)}/${verb}`);
  if (!result.ok) return renderProblem(c, `Could not ${verb} the tenant`, "limits", result.problem);
  return c.redirect(`${BASE}/limits?notice=${verb}ed`, 303);
});
