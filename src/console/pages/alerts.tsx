import { ALERT_KINDS, ALERT_STATES } from "../../core/alerts/alerts";
import type { ListPageProps } from "../components";
import {
  ActionForm,
  Badge,
  ColumnHeads,
  Empty,
  JobRef,
  Notice,
  Pager,
  ProblemBox,
  RunLink,
  TableWrap,
} from "../components";
import { BASE } from "../env";
import { FilterForm, FilterSelect, StateFilter } from "../filters";
import { Time } from "../format";
import type { Alert } from "../types";

export interface AlertFilters {
  kind: string;
  state: string;
}

/** Acknowledge (while open) and Resolve (until resolved), posted with the current filters. */
function AlertActions({ alert, csrf, filters }: { alert: Alert; csrf: string; filters: AlertFilters }) {
  if (alert.state === "resolved") return null;
  const action = (verb: "ack" | "resolve") => `${BASE}/alerts/${encodeURIComponent(alert.id)}/${verb}`;
  const hidden = { kind: filters.kind, state: filters.state };
  return (
    <div class="alert-actions">
      {alert.state === "open" ? (
        <ActionForm
          action={action("ack")}
          csrf={csrf}
          label="Acknowledge"
          hidden={hidden}
          ariaLabel={`Acknowledge alert ${alert.id}`}
        />
      ) : null}
      <ActionForm
        action={action("resolve")}
        csrf={csrf}
        label="Resolve"
        hidden={hidden}
        ariaLabel={`Resolve alert ${alert.id}`}
      />
    </div>
  );
}

const DELIVERY_TEXT: Record<Alert["delivery"], string> = {
  pending: "pending",
  delivered: "delivered",
  failed: "failed (retrying)",
  none: "none: no webhook",
};

/** Raised, delivered, acknowledged, resolved: each with its time, or what happened instead. */
function AlertTimeline({ alert }: { alert: Alert }) {
  return (
    <dl class="timeline">
      <dt>raised</dt>
      <dd>
        <Time iso={alert.created_at} />
      </dd>
      <dt>delivery</dt>
      <dd title={alert.delivery_error ?? undefined}>
        {alert.delivery === "delivered" ? <Time iso={alert.delivered_at} /> : DELIVERY_TEXT[alert.delivery]}
      </dd>
      {alert.acknowledged_at ? (
        <>
          <dt>acknowledged</dt>
          <dd>
            <Time iso={alert.acknowledged_at} />
          </dd>
        </>
      ) : null}
      {alert.resolved_at ? (
        <>
          <dt>resolved</dt>
          <dd>
            <Time iso={alert.resolved_at} />
            {alert.resolution === "job_fired_again" ? <div class="muted">job fired again</div> : null}
            {alert.resolution === "throttle_ended" ? (
              <div class="muted">its runs no longer wait for its share</div>
            ) : null}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

/** `dead_lettered` as "dead lettered". */
function spaced(value: string): string {
  return value.replaceAll("_", " ");
}

export function AlertsPage(
  props: ListPageProps & { filters: AlertFilters; alerts: Alert[]; jobNames: ReadonlyMap<string, string> },
) {
  return (
    <>
      <Notice text={props.notice} />
      <FilterForm path="/alerts" label="Filter alerts">
        <StateFilter values={ALERT_STATES} selected={props.filters.state} optionText={spaced} />
        <FilterSelect
          id="filter-kind"
          name="kind"
          label="Kind"
          any="Any kind"
          values={ALERT_KINDS}
          selected={props.filters.kind}
          optionText={spaced}
        />
      </FilterForm>
      {props.problem ? <ProblemBox problem={props.problem} /> : null}
      {props.alerts.length === 0 && !props.problem ? <Empty>No alerts.</Empty> : null}
      {props.alerts.length > 0 ? (
        <TableWrap label="Alerts">
          <table class="alerts">
            <ColumnHeads names={["Status", "Kind", "Message", "Job", "Run", "When (UTC)"]} />
            <tbody>
              {props.alerts.map((alert) => (
                <tr data-alert-id={alert.id} data-alert-state={alert.state}>
                  <td>
                    <Badge value={alert.state.toUpperCase()} />
                    <AlertActions alert={alert} csrf={props.csrf} filters={props.filters} />
                  </td>
                  <td>{alert.kind}</td>
                  <td class="message-text">{alert.message}</td>
                  <td>{alert.job_id ? <JobRef jobId={alert.job_id} names={props.jobNames} /> : "—"}</td>
                  <td>{alert.run_id ? <RunLink runId={alert.run_id} label="History" /> : "—"}</td>
                  <td>
                    <AlertTimeline alert={alert} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <Pager base={`${BASE}/alerts`} params={{ ...props.filters }} cursor={props.nextCursor} />
    </>
  );
}
