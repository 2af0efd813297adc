// One run: what it is, where it stands, and every state transition with its time and reason.
import { ActionForm, Badge, ColumnHeads, JobRef } from "../components";
import { BASE } from "../env";
import { formatMs, Time } from "../format";
import { LatenessCell } from "../run-wait-cells";
import type { Run, RunEvent } from "../types";

const RETRYABLE = new Set(["FAILED", "DEAD_LETTERED"]);

function EventRow({ event }: { event: RunEvent & Record<string, unknown> }) {
  return (
    <tr data-event-state={event.state}>
      <td>
        <Time iso={event.at} />
      </td>
      <td>
        <Badge value={event.state} />
      </td>
      <td>{event.attempt ?? "—"}</td>
      <td class="reason-text">{event.reason ?? "—"}</td>
    </tr>
  );
}

/** A long-running attempt: when the target took it on and when it last said it was alive. */
function LongRunningFacts({ run }: { run: Run }) {
  return (
    <>
      <dt>Accepted by target</dt>
      <dd>
        <Time iso={run.accepted_at ?? ""} />
        {run.state === "RUNNING" ? <div class="muted">waiting for the target to report back</div> : null}
      </dd>
      <dt>Last heartbeat</dt>
      <dd>{run.last_heartbeat_at ? <Time iso={run.last_heartbeat_at} /> : "none yet"}</dd>
    </>
  );
}

export function RunDetailPage({
  run,
  jobNames,
  csrf,
}: {
  run: Run;
  jobNames: ReadonlyMap<string, string>;
  csrf: string;
}) {
  const events = run.events ?? [];
  return (
    <>
      <section class="card" aria-labelledby="run-facts">
        <h2 id="run-facts">Run</h2>
        <dl class="definition">
          <dt>Run ID</dt>
          <dd class="mono">{run.id}</dd>
          <dt>Job</dt>
          <dd>
            <JobRef jobId={run.job_id} names={jobNames} />
          </dd>
          <dt>State</dt>
          <dd>
            <Badge value={run.state} />
          </dd>
          <dt>Kind</dt>
          <dd>{run.kind}</dd>
          {run.triggers_folded > 0 ? (
            <>
              <dt>Triggers folded</dt>
              <dd data-triggers-folded={run.triggers_folded}>
                {run.triggers_folded} more trigger{run.triggers_folded === 1 ? "" : "s"} folded into this run
                (debounce)
              </dd>
            </>
          ) : null}
          <dt>Trace</dt>
          <dd>
            <code data-trace-id={run.trace_id}>{run.trace_id}</code>{" "}
            <span class="muted">
              (its spans, when an OTLP endpoint is set; the target gets it in traceparent)
            </span>
          </dd>
          <dt>Scheduled for</dt>
          <dd>
            <Time iso={run.scheduled_at} />
          </dd>
          <dt>Attempt</dt>
          <dd>
            {run.attempt} of {run.max_attempts}
          </dd>
          {run.next_attempt_at ? (
            <>
              <dt>Next attempt</dt>
              <dd>
                <Time iso={run.next_attempt_at} />
              </dd>
            </>
          ) : null}
          {run.waiting ? (
            <>
              <dt>Waiting for</dt>
              <dd data-waiting={run.waiting.cause}>
                {run.waiting.reason}
                {run.waiting.since ? (
                  <>
                    {" "}
                    (since <Time iso={run.waiting.since} />)
                  </>
                ) : null}
              </dd>
            </>
          ) : null}
          <dt>Lateness</dt>
          <dd>
            <LatenessCell run={run} />
          </dd>
          <dt>Duration</dt>
          <dd>{formatMs(run.duration_ms)}</dd>
          <dt>Target status</dt>
          <dd>{run.target_status ?? "—"}</dd>
          <dt>Error</dt>
          <dd class="error-text">{run.error ?? "—"}</dd>
          {run.accepted_at ? <LongRunningFacts run={run} /> : null}
          {run.result !== undefined && run.result !== null ? (
            <>
              <dt>Result</dt>
              <dd>
                <pre class="mono result-json">{JSON.stringify(run.result, null, 2)}</pre>
              </dd>
            </>
          ) : null}
        </dl>
        {RETRYABLE.has(run.state) ? (
          <ActionForm
            action={`${BASE}/runs/${encodeURIComponent(run.id)}/retry`}
            csrf={csrf}
            label="Retry now"
            confirm={`Retry run ${run.id} now?`}
          />
        ) : null}
      </section>
      <section class="card" aria-labelledby="run-history">
        <h2 id="run-history">State history</h2>
        <p class="muted">Every transition, oldest first, as the scheduler recorded it. Times in UTC.</p>
        <div class="table-wrap" tabindex={0}>
          <table class="run-history">
            <ColumnHeads names={["At", "State", "Attempt", "Reason"]} />
            <tbody>
              {events.map((event) => (
                <EventRow event={event as RunEvent & Record<string, unknown>} />
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
