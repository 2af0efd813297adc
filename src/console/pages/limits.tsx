// The tenant's limits and a flow-control key's state: what admission control is doing now.
import { ColumnHeads, Empty, Notice, ProblemBox, TableWrap } from "../components";
import { BASE } from "../env";
import { FilterForm, SearchFilter } from "../filters";
import { Time } from "../format";
import type { Problem } from "../types";
import { ThrottledHosts, type ThrottledHostView } from "./throttled-hosts";

export interface TenantLimitsView {
  active_jobs: number | null;
  creates_per_second: number | null;
  triggers_per_second: number | null;
  concurrent_calls: number | null;
  /** The tenant's weight in a saturated dispatch window's fair share (default 1). */
  weight: number;
  overridden: string[];
  dispatch: { waiting: number; in_flight: number; triggers_in_window: number } | null;
}

export interface FlowStateView {
  key: string;
  waiting: number;
  in_flight: number;
  rate_count: number;
  rate_period_start: string;
  limits: { rate: number | null; period: string; parallelism: number | null } | null;
  updated_at: string | null;
}

const LIMIT_ROWS = [
  ["active_jobs", "Active jobs", "creates refused over it (429)"],
  ["creates_per_second", "Creates per second", "creates refused over it (429)"],
  ["triggers_per_second", "Triggers per second", "runs wait over it"],
  ["concurrent_calls", "Concurrent calls", "runs wait over it"],
] as const;

const limitText = (value: number | null) => (value === null ? "no limit" : value.toLocaleString("en-US"));

function LimitsTable({ limits }: { limits: TenantLimitsView }) {
  return (
    <TableWrap label="Tenant limits">
      <table>
        <ColumnHeads names={["Limit", "Value", "Source", "Over it"]} />
        <tbody>
          {LIMIT_ROWS.map(([name, label, effect]) => (
            <tr data-limit={name}>
              <th scope="row">{label}</th>
              <td>{limitText(limits[name])}</td>
              <td>{limits.overridden.includes(name) ? "set for this tenant" : "deployment default"}</td>
              <td class="muted">{effect}</td>
            </tr>
          ))}
          <tr data-limit="weight">
            <th scope="row">Fair-share weight</th>
            <td>{limits.weight}</td>
            <td>{limits.overridden.includes("weight") ? "set for this tenant" : "deployment default"}</td>
            <td class="muted">its share of a full dispatch window, against other tenants' weights</td>
          </tr>
        </tbody>
      </table>
    </TableWrap>
  );
}

function TenantDispatch({ dispatch }: { dispatch: NonNullable<TenantLimitsView["dispatch"]> }) {
  return (
    <p data-field="tenant-dispatch">
      Now: {dispatch.waiting} runs waiting for these limits, {dispatch.in_flight} calls in flight,{" "}
      {dispatch.triggers_in_window} started in the last second.
    </p>
  );
}

function KeysTable({ keys }: { keys: FlowStateView[] }) {
  return (
    <TableWrap label="Flow-control keys">
      <table>
        <ColumnHeads names={["Key", "Waiting", "In flight", "Started this window"]} />
        <tbody>
          {keys.map((key) => (
            <tr data-key-row={key.key}>
              <th scope="row">
                <a href={`${BASE}/limits?key=${encodeURIComponent(key.key)}`}>{key.key}</a>
              </th>
              <td>{key.waiting}</td>
              <td>
                {key.in_flight}
                {key.limits?.parallelism ? ` of ${key.limits.parallelism}` : ""}
              </td>
              <td>
                {key.rate_count}
                {key.limits?.rate ? ` of ${key.limits.rate} per ${key.limits.period}` : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function FlowState({ state }: { state: FlowStateView }) {
  const limits = state.limits;
  return (
    <dl class="timeline" data-flow-key={state.key}>
      <dt>waiting</dt>
      <dd data-field="waiting">{state.waiting}</dd>
      <dt>in flight</dt>
      <dd data-field="in_flight">
        {state.in_flight}
        {limits?.parallelism ? ` of ${limits.parallelism}` : ""}
      </dd>
      <dt>started this window</dt>
      <dd data-field="rate_count">
        {state.rate_count}
        {limits?.rate ? ` of ${limits.rate} per ${limits.period}` : ""} (since{" "}
        <Time iso={state.rate_period_start} />)
      </dd>
      <dt>limits</dt>
      <dd>
        {limits === null
          ? "none yet: no run of this key has asked"
          : `rate ${limitText(limits.rate)} per ${limits.period}, parallelism ${limitText(limits.parallelism)}`}
      </dd>
    </dl>
  );
}

export function LimitsPage(props: {
  limits: TenantLimitsView | null;
  limitsProblem?: Problem;
  flowKey: string;
  flow: FlowStateView | null;
  flowProblem?: Problem;
  /** The tenant's keys that runs have used, with their state. */
  keys: FlowStateView[];
  /** The target hosts its calls are throttled at. */
  hosts: ThrottledHostView[];
  notice?: string;
}) {
  return (
    <>
      <Notice text={props.notice} />
      <h1>Limits and flow control</h1>
      <h2>This tenant's limits</h2>
      {props.limitsProblem ? <ProblemBox problem={props.limitsProblem} /> : null}
      {props.limits ? (
        <LimitsTable limits={props.limits} />
      ) : (
        <Empty>Choose a tenant to see its limits.</Empty>
      )}
      {props.limits?.dispatch ? <TenantDispatch dispatch={props.limits.dispatch} /> : null}
      <h2>Flow-control key</h2>
      <FilterForm path="/limits" label="Look up a flow-control key" submit="Show">
        <SearchFilter id="flow-key" name="key" label="Key" value={props.flowKey} />
      </FilterForm>
      {props.keys.length > 0 ? (
        <KeysTable keys={props.keys} />
      ) : (
        <Empty>No run has used a flow-control key yet.</Empty>
      )}
      {props.flowProblem ? <ProblemBox problem={props.flowProblem} /> : null}
      {props.flow ? <FlowState state={props.flow} /> : null}
      <h2>Throttled target hosts</h2>
      <ThrottledHosts hosts={props.hosts} />
    </>
  );
}
