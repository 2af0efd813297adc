import type { Child } from "hono/jsx";
import { targetPolicyOf } from "../service/private-targets";
import { tzdataVersion } from "../tzdata";
import { callApi } from "./api";
import { ProblemBox } from "./components";
import type { ConsoleContext } from "./env";
import { Layout, type NavKey } from "./layout";
import type { Problem, Tenant } from "./types";

export interface PageOptions {
  title: string;
  active: NavKey;
  status?: 200 | 400 | 401 | 403 | 404 | 409 | 422 | 500 | 502 | 503;
  autoRefresh?: boolean;
}

/** Renders a signed-in page inside the layout; admins also get the tenant list for the switcher. */
export async function renderPage(c: ConsoleContext, options: PageOptions, body: Child): Promise<Response> {
  const session = c.get("session");
  let tenants: Tenant[] = [];
  if (session.role === "admin") {
    const result = await callApi<{ data: Tenant[] }>(c, "GET", "/v1/tenants", { tenant: null });
    if (result.ok && Array.isArray(result.data?.data)) tenants = result.data.data;
  } else if (session.tenantId) {
    // The header names the key's tenant, not only its id.
    const own = await callApi<Tenant>(c, "GET", `/v1/tenants/${encodeURIComponent(session.tenantId)}`);
    if (own.ok && own.data) tenants = [own.data];
  }
  const url = new URL(c.req.url);
  return c.html(
    <Layout
      title={options.title}
      active={options.active}
      session={session}
      csrf={c.get("csrf")}
      tenants={tenants}
      currentPath={url.pathname + url.search}
      autoRefresh={options.autoRefresh}
      tzdata={tzdataVersion(c.env)}
      targetPolicy={targetPolicyOf(c.env)}
    >
      {body}
    </Layout>,
    options.status ?? 200,
  );
}

/** The page status for an API problem: the API's own status, or 502 for one a page cannot answer. */
export function pageStatusOf(problem: Problem): NonNullable<PageOptions["status"]> {
  const status = ([400, 401, 403, 404, 409, 422, 500, 502, 503] as const).find(
    (code) => code === problem.status,
  );
  return status ?? 502;
}

/** A page whose API call failed: the problem, with the API's status. */
export function renderProblem(c: ConsoleContext, title: string, active: NavKey, problem: Problem) {
  return renderPage(c, { title, active, status: pageStatusOf(problem) }, <ProblemBox problem={problem} />);
}

/**
 * No-script fallback for confirmations: the script sets `confirmed=1` after the <dialog>; a POST
 * without it gets this page, which re-posts the same fields once the operator agrees.
 */
export async function confirmFirst(
  c: ConsoleContext,
  message: string,
  back: string,
): Promise<Response | null> {
  const body = await c.req.parseBody({ all: true });
  if (body.confirmed === "1") return null;
  const fields: [string, string][] = [];
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === "string") fields.push([name, item]);
    }
  }
  return renderPage(
    c,
    { title: "Please confirm", active: "none" },
    <form method="post" action={new URL(c.req.url).pathname} class="card">
      {fields.map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <input type="hidden" name="confirmed" value="1" />
      <p>{message}</p>
      <div class="actions">
        <a href={back} class="button secondary">
          Cancel
        </a>
        <button type="submit">Confirm</button>
      </div>
    </form>,
  );
}
