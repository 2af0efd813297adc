import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { Session } from "../service/console-sessions";
import type { ConfiguredTargetPolicy } from "../service/private-targets";
import { shortId } from "./components";
import { BASE } from "./env";
import { TargetPolicyLine } from "./target-policy-line";
import type { Tenant } from "./types";

const NAV = [
  { key: "overview", href: BASE, label: "Overview" },
  { key: "jobs", href: `${BASE}/jobs`, label: "Jobs" },
  { key: "new", href: `${BASE}/jobs/new`, label: "New job" },
  { key: "runs", href: `${BASE}/runs`, label: "Runs" },
  { key: "dead-letters", href: `${BASE}/dead-letters`, label: "Dead letters" },
  { key: "alerts", href: `${BASE}/alerts`, label: "Alerts" },
  { key: "calendars", href: `${BASE}/calendars`, label: "Calendars" },
  { key: "limits", href: `${BASE}/limits`, label: "Limits" },
] as const;

export type NavKey = (typeof NAV)[number]["key"] | "none";

export interface LayoutProps {
  title: string;
  active?: NavKey;
  session?: Session;
  csrf?: string;
  tenants?: Tenant[];
  currentPath?: string;
  /** Offer the "auto-refresh" switch (pages that show live run data). */
  autoRefresh?: boolean;
  /** The tz database version fire times are computed with, shown in the footer. */
  tzdata?: string;
  /** Which targets this deployment calls, shown in the footer. */
  targetPolicy?: ConfiguredTargetPolicy;
  children?: Child;
}

function TenantSwitch({
  session,
  csrf,
  tenants,
  currentPath,
}: Required<Omit<LayoutProps, "children" | "active" | "title" | "autoRefresh" | "tzdata" | "targetPolicy">>) {
  return (
    <form method="post" action={`${BASE}/tenant`} class="tenant-switch">
      <input type="hidden" name="_csrf" value={csrf} />
      <input type="hidden" name="next" value={currentPath} />
      <label for="tenant-select">Tenant</label>
      <select id="tenant-select" name="tenant">
        <option value="" selected={!session.actingTenant}>
          (none)
        </option>
        {tenants.map((tenant) => (
          <option value={tenant.id} selected={tenant.id === session.actingTenant} title={tenant.id}>
            {tenantLabel(tenant)}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary small">
        Switch
      </button>
    </form>
  );
}

/**
 * "acme (…7K2QDX)": the name first (what people recognise), then the tail of the id, its random
 * part, so two tenants of the same name differ even in a narrow select. Ids share their time prefix.
 */
export function tenantLabel(tenant: Tenant): string {
  return `${tenant.name} (${shortId(tenant.id)})`;
}

/** A tenant key's own tenant: its name and the tail of its id (the whole id on hover). */
function TenantName({ session, tenants }: { session: Session; tenants: Tenant[] }) {
  const tenant = tenants.find((candidate) => candidate.id === session.tenantId);
  return (
    <span class="tenant-name" title={session.tenantId ?? ""}>
      Tenant <strong>{tenant ? tenantLabel(tenant) : session.tenantId}</strong>
    </span>
  );
}

function Header({ session, csrf, tenants, currentPath, active }: LayoutProps) {
  return (
    <header class="topbar">
      <div class="topbar-row">
        <a class="brand" href={BASE}>
          <span aria-hidden="true" class="brand-mark">
            ◷
          </span>{" "}
          edgecron <span class="brand-sub">console</span>
        </a>
        {session && csrf ? (
          <div class="identity">
            {session.role === "admin" ? (
              <TenantSwitch
                session={session}
                csrf={csrf}
                tenants={tenants ?? []}
                currentPath={currentPath ?? BASE}
              />
            ) : (
              <TenantName session={session} tenants={tenants ?? []} />
            )}
            <form method="post" action={`${BASE}/logout`}>
              <input type="hidden" name="_csrf" value={csrf} />
              <button type="submit" class="secondary small">
                Sign out
              </button>
            </form>
          </div>
        ) : null}
      </div>
      {session ? (
        <nav aria-label="Console" class="nav">
          <ul class="nav-list">
            {NAV.map((item) => (
              <li>
                <a href={item.href} aria-current={item.key === active ? "page" : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </header>
  );
}

export function Layout(props: LayoutProps) {
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${props.title} · edgecron console`}</title>
          <link rel="icon" href="data:," />
          <link rel="stylesheet" href={`${BASE}/assets/console.css`} />
          <script src={`${BASE}/assets/console.js`} defer></script>
        </head>
        <body>
          <a class="skip-link" href="#main">
            Skip to content
          </a>
          <Header {...props} />
          <main id="main" tabindex={-1}>
            <div class="page-head">
              <h1>{props.title}</h1>
              {props.autoRefresh ? (
                // Revealed by the script: without it there is nothing to switch.
                <label class="inline autorefresh" hidden>
                  <input type="checkbox" data-autorefresh="" /> Auto-refresh every 5 s
                </label>
              ) : null}
            </div>
            {props.children}
          </main>
          {props.tzdata || props.targetPolicy ? (
            <footer class="site-footer">
              {props.tzdata ? (
                <p class="footer-line">
                  Time-zone data <code title="the runtime's tz database, by fingerprint">{props.tzdata}</code>
                </p>
              ) : null}
              {props.targetPolicy ? <TargetPolicyLine policy={props.targetPolicy} /> : null}
            </footer>
          ) : null}
          <dialog id="confirm-dialog" aria-labelledby="confirm-title">
            <form method="dialog">
              <h2 id="confirm-title">Please confirm</h2>
              <p id="confirm-message"></p>
              <div class="actions">
                <button type="submit" value="cancel" class="secondary">
                  Cancel
                </button>
                <button type="submit" value="confirm" id="confirm-ok">
                  Confirm
                </button>
              </div>
            </form>
          </dialog>
        </body>
      </html>
    </>
  );
}
