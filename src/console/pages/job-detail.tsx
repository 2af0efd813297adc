import { describeRule } from "../calendar-form-data";
import { ActionForm, Badge, Empty, ManagedBy, Notice, Pager, TableWrap } from "../components";
import { BASE } from "../env";
import { describeSchedule, describeTarget, jobZone, TARGET_KIND_LABELS, Time, ZonedTime } from "../format";
import type { Job, Run } from "../types";
import { RunsTable } from "./runs";

/** How a run of the job ends: the target's answer, or its report back (long-running targets). */
function describeCompletion(job: Job): string {
  const heartbeat = String(job.heartbeat_timeout ?? "5m");
  return job.completion === "callback"
    ? `the target reports back (heartbeat within ${heartbeat})`
    : `the HTTP answer; 202 + Edgecron-Async: the target reports back (heartbeat within ${heartbeat})`;
}

/** "10 per 1s, 2 at once (key billing)": a flow-control key's limits, as the job sets them. */
function describeFlowControl(flow: Record<string, unknown>): string {
  const limits = [
    flow.rate === undefined ? null : `${String(flow.rate)} starts per ${String(flow.period ?? "1s")}`,
    flow.parallelism === undefined ? null : `${String(flow.parallelism)} in flight`,
  ].filter((limit) => limit !== null);
  return `key ${String(flow.key)}: ${limits.join(", ") || "no limit"} (shared by the tenant's jobs with this key)`;
}

/** "trailing, 30s after the last trigger (at most 5m after the first); key account". */
function describeDebounce(debounce: NonNullable<Job["debounce"]>): string {
  const when =
    debounce.mode === "leading"
      ? `leading: the first trigger runs, the next ${debounce.period} fold into it`
      : `trailing: one run ${debounce.period} after the last trigger${debounce.max_wait ? ` (at most ${debounce.max_wait} after the first)` : ""}`;
  return `${when}; key ${debounce.key ?? "default"} (a trigger's debounce_key overrides it)`;
}

/** "MON-FRI 08:00-20:00 (Europe/Berlin); outside: deferred to the opening". */
function describeWindow(window: NonNullable<Job["window"]>): string {
  const days = window.days?.length ? window.days.join(", ") : "every day";
  const zone = window.timezone ?? "the schedule's zone";
  const outside =
    window.outside === "skip" ? "skipped (recorded as outside_window)" : "deferred to the next opening";
  return `${days} ${window.between[0]}-${window.between[1]} (${zone}); outside it: ${outside}; retries wait for it`;
}

/** Every field that changes how or when a run goes out, including those left at their default. */
function dispatchRows(job: Job): [string, string][] {
  const flow = job.flow_control as Record<string, unknown> | null | undefined;
  const metadata = job.metadata as Record<string, unknown> | undefined;
  return [
    ["Debounce", job.debounce ? describeDebounce(job.debounce) : "none: every trigger is its own run"],
    ["Flow control", flow ? describeFlowControl(flow) : "none"],
    ["Jitter", job.jitter == null ? "none" : `up to ${String(job.jitter)} after each instant`],
    ["Delivery window", job.window ? describeWindow(job.window) : "none: any time"],
    [
      "Flexible window",
      job.flexible_window
        ? `each instant fires within ${String(job.flexible_window.max)} after it (the next fire times show where)`
        : "none",
    ],
    ["Alert after", `${String(job.alert_after ?? "2m")} late: a missed_run alert`],
    [
      "Pause after failures",
      job.pause_after_failures == null
        ? "never"
        : `${String(job.pause_after_failures)} dead-lettered runs in a row`,
    ],
    ["On failure", job.on_failure == null ? "no webhook" : String(job.on_failure)],
    ["Metadata", metadata && Object.keys(metadata).length > 0 ? JSON.stringify(metadata) : "none"],
  ];
}

function Definition({ job }: { job: Job }) {
  const rows: [string, string][] = [
    ["ID", job.id],
    ["Status", job.status],
    ["Version", String(job.version)],
    ...(job.schedules ?? (job.schedule ? [job.schedule] : [])).map((spec, index, all): [string, string] => [
      all.length > 1 ? `Spec ${index + 1}` : "Schedule",
      describeSchedule(spec),
    ]),
    ["Calendars", job.calendars?.length ? job.calendars.join(", ") : "none"],
    ...(job.exclude
      ? [
          ["Excludes", `${job.exclude.rules.map(describeRule).join("; ")} (${job.exclude.timezone})`] as [
            string,
            string,
          ],
        ]
      : []),
    ["Target kind", TARGET_KIND_LABELS[job.target.type] ?? job.target.type],
    ["Target", describeTarget(job.target)],
    [
      "Retries",
      `up to ${job.retry.max_attempts} attempts, first retry after ${String(job.retry.backoff?.initial ?? "?")}`,
    ],
    ["Timeout", String(job.timeout)],
    ["Overlap", job.overlap],
    ["Misfire", job.misfire.policy],
    ["Completion", describeCompletion(job)],
    ...dispatchRows(job),
  ];
  return (
    <dl class="definition">
      {rows.map(([term, value]) => (
        <>
          <dt>{term}</dt>
          <dd>{term === "Status" ? <Badge value={value} /> : value}</dd>
        </>
      ))}
      <dt>Window</dt>
      <dd>
        {job.start_at ? <Time iso={job.start_at} /> : "now"} →{" "}
        {job.end_at ? <Time iso={job.end_at} /> : "no end"}
        {job.max_runs ? `, at most ${job.max_runs} runs` : ""}
      </dd>
      <dt>Created</dt>
      <dd>
        <Time iso={job.created_at} />
      </dd>
      <dt>Updated</dt>
      <dd>
        <Time iso={job.updated_at} />
      </dd>
    </dl>
  );
}

function FireTimes({ job }: { job: Job }) {
  const zone = jobZone(job);
  const stopped = job.next_fire_times_stopped;
  // A list the search bound cut short says so (docs/API.md, "The search bound").
  const note = stopped ? <p data-field="next-fires-stopped">{stopped.detail}</p> : null;
  if (!job.next_fire_times?.length) {
    return note ?? <Empty>Nothing will fire (job {job.status.toLowerCase()}).</Empty>;
  }
  return (
    <TableWrap label="Next fire times">
      {note}
      <table>
        <thead>
          <tr>
            <th scope="col">#</th>
            {zone ? <th scope="col">Job zone ({zone})</th> : null}
            <th scope="col">UTC</th>
          </tr>
        </thead>
        <tbody>
          {job.next_fire_times.map((iso, index) => (
            <tr>
              <td>{index + 1}</td>
              {zone ? (
                <td>
                  <ZonedTime iso={iso} zone={zone} />
                </td>
              ) : null}
              <td>
                <Time iso={iso} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** A COMPLETED job has nothing left to fire, pause or backfill: only editing or deleting it acts. */
const runsCanStart = (job: Job) => job.status === "ACTIVE" || job.status === "PAUSED";

function Actions({ job, csrf }: { job: Job; csrf: string }) {
  const path = `${BASE}/jobs/${encodeURIComponent(job.id)}`;
  if (job.status === "DELETED") return <Empty>This job is deleted.</Empty>;
  return (
    <div class="action-bar">
      {!runsCanStart(job) ? (
        <span class="muted">This job is {job.status.toLowerCase()}: no run starts any more.</span>
      ) : job.status === "PAUSED" ? (
        <ActionForm
          action={`${path}/resume`}
          csrf={csrf}
          label="Resume"
          variant="primary"
          confirm={`Resume “${job.name}”? Missed fire times follow its misfire policy (${job.misfire.policy}).`}
        />
      ) : (
        <ActionForm
          action={`${path}/pause`}
          csrf={csrf}
          label="Pause"
          confirm={`Pause “${job.name}”? No run fires until you resume it.`}
        />
      )}
      {runsCanStart(job) ? (
        <ActionForm
          action={`${path}/trigger`}
          csrf={csrf}
          label="Trigger now"
          confirm={`Run “${job.name}” now, outside its schedule?`}
        />
      ) : null}
      <a class="button secondary" href={`${path}/edit`}>
        Edit
      </a>
      <ActionForm
        action={`${path}/delete`}
        csrf={csrf}
        label="Delete"
        variant="danger"
        confirm={`Delete “${job.name}”? Pending runs and retries are cancelled. This cannot be undone.`}
      />
    </div>
  );
}

function Backfill({ job, csrf }: { job: Job; csrf: string }) {
  return (
    <form
      method="post"
      action={`${BASE}/jobs/${encodeURIComponent(job.id)}/backfill`}
      class="backfill"
      data-confirm={`Create a run for every fire time of “${job.name}” in this range?`}
    >
      <input type="hidden" name="_csrf" value={csrf} />
      <div class="field">
        <label for="backfill-from">From (UTC)</label>
        <input id="backfill-from" name="from" type="datetime-local" step="1" required />
      </div>
      <div class="field">
        <label for="backfill-to">To (UTC)</label>
        <input id="backfill-to" name="to" type="datetime-local" step="1" required />
      </div>
      <div class="actions">
        <button type="submit" class="secondary">
          Backfill
        </button>
      </div>
    </form>
  );
}

export function JobDetailPage(props: {
  job: Job;
  runs: Run[];
  nextCursor: string | null;
  csrf: string;
  notice?: string;
}) {
  const { job, csrf } = props;
  return (
    <>
      <Notice text={props.notice} />
      {job.managed_by ? <ManagedBy label={job.managed_by} /> : null}
      <Actions job={job} csrf={csrf} />
      <div class="grid">
        <section class="card" aria-labelledby="definition">
          <h2 id="definition">Definition</h2>
          <Definition job={job} />
        </section>
        <section class="card" aria-labelledby="fire-times">
          <h2 id="fire-times">Next 10 fire times</h2>
          <FireTimes job={job} />
        </section>
      </div>
      <section class="card" aria-labelledby="run-history">
        <h2 id="run-history">Run history</h2>
        {props.runs.length ? (
          <RunsTable runs={props.runs} csrf={csrf} showJob={false} />
        ) : (
          <Empty>No runs yet.</Empty>
        )}
        <Pager base={`${BASE}/jobs/${encodeURIComponent(job.id)}`} params={{}} cursor={props.nextCursor} />
      </section>
      {runsCanStart(job) ? (
        <section class="card" aria-labelledby="backfill">
          <h2 id="backfill">Backfill</h2>
          <p class="muted">Runs every fire time of the schedule between two instants (at most 1,000).</p>
          <Backfill job={job} csrf={csrf} />
        </section>
      ) : null}
    </>
  );
}
