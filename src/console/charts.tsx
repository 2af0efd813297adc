// Charts are plain server-rendered SVG (no library, no script). Shapes stretch with the card
// (preserveAspectRatio="none") while every number and label is real HTML text, so charts stay
// legible at 390 px and screen readers get the same figures.

import type { PercentileSummary } from "../core/common/percentiles";
import { HOLD_CAUSES, type HoldCause } from "../core/load/run-waits";
import type { LatenessSummary } from "../service/run-stats";
import { formatMs, formatUtcMinute } from "./format";
import type { Stats } from "./types";

const PLOT_WIDTH = 600;
const PLOT_HEIGHT = 160;

export function PerMinuteChart({ points }: { points: Stats["per_minute"] }) {
  const max = Math.max(1, ...points.map((point) => point.triggers));
  const slot = PLOT_WIDTH / Math.max(points.length, 1);
  const barWidth = Math.max(1, slot * 0.72);
  const y = (value: number) => PLOT_HEIGHT - (value / max) * PLOT_HEIGHT;
  const totalTriggers = points.reduce((sum, point) => sum + point.triggers, 0);
  const totalFailures = points.reduce((sum, point) => sum + point.failures, 0);
  const first = points[0];
  const last = points[points.length - 1];
  const ticks = points.filter((_, index) => index % 15 === 0 || index === points.length - 1);
  const summary = `${totalTriggers} triggers and ${totalFailures} failures in the last ${points.length} minutes${
    first && last ? ` (${formatUtcMinute(first.minute)} to ${formatUtcMinute(last.minute)})` : ""
  }; busiest minute: ${totalTriggers === 0 ? 0 : max} triggers.`;
  return (
    <figure class="chart" data-chart="per-minute" data-total-triggers={String(totalTriggers)}>
      <div class="plot">
        <div class="y-axis" aria-hidden="true">
          <span>{totalTriggers === 0 ? 0 : max}</span>
          <span>0</span>
        </div>
        <svg
          viewBox={`0 0 ${PLOT_WIDTH} ${PLOT_HEIGHT}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={`Bar chart: ${summary}`}
        >
          <line
            x1={0}
            x2={PLOT_WIDTH}
            y1={0.5}
            y2={0.5}
            class="gridline"
            vector-effect="non-scaling-stroke"
          />
          {points.map((point, index) => {
            const x = index * slot + (slot - barWidth) / 2;
            // Failures stand in front of the triggers of the same minute; a zero draws no bar.
            const bar = (count: number, barClass: string) =>
              count > 0 ? (
                <rect x={x} y={y(count)} width={barWidth} height={PLOT_HEIGHT - y(count)} class={barClass} />
              ) : null;
            return (
              <g>
                <title>{`${formatUtcMinute(point.minute)}: ${point.triggers} triggers, ${point.failures} failures`}</title>
                {bar(point.triggers, "bar-triggers")}
                {bar(point.failures, "bar-failures")}
              </g>
            );
          })}
          <line
            x1={0}
            x2={PLOT_WIDTH}
            y1={PLOT_HEIGHT}
            y2={PLOT_HEIGHT}
            class="axis"
            vector-effect="non-scaling-stroke"
          />
        </svg>
        <div class="x-axis" aria-hidden="true">
          {ticks.map((point) => (
            <span>{formatUtcMinute(point.minute).replace(" UTC", "")}</span>
          ))}
        </div>
      </div>
      <figcaption>
        <span class="legend legend-triggers">Triggers</span>{" "}
        <span class="legend legend-failures">Failures</span>{" "}
        <span class="muted">per minute, times in UTC</span>
        <p class="muted small-text">{summary}</p>
      </figcaption>
    </figure>
  );
}

/** Horizontal bars for a few labelled values: labels and figures are text, bars are SVG. */
export function BarList({
  id,
  title,
  rows,
  format = (value: number) => String(value),
}: {
  id: string;
  title: string;
  rows: { label: string; value: number | null; tone?: string }[];
  format?: (value: number) => string;
}) {
  const max = Math.max(1, ...rows.map((row) => row.value ?? 0));
  return (
    <ul class="barlist" aria-label={title} data-chart={id}>
      {rows.map((row) => {
        const percent = row.value ? Math.max(0.5, (row.value / max) * 100) : 0;
        return (
          <li>
            <span class="bar-label">{row.label}</span>
            <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" class="bar-track">
              <rect x={0} y={0} width={100} height={10} class="track" />
              <rect x={0} y={0} width={percent} height={10} class={`tone-${row.tone ?? "default"}`} />
            </svg>
            <span class="bar-value">{row.value === null ? "—" : format(row.value)}</span>
          </li>
        );
      })}
      {rows.length === 0 ? <li class="muted">Nothing yet.</li> : null}
    </ul>
  );
}

function percentileRows(summary: PercentileSummary, prefix: string) {
  return [
    { label: `${prefix}p50`, value: summary.p50, tone: "good" },
    { label: `${prefix}p90`, value: summary.p90, tone: "warn" },
    { label: `${prefix}p99`, value: summary.p99, tone: "bad" },
  ];
}

const runCount = (count: number) => `${count} run${count === 1 ? "" : "s"}`;

/** What each policy's part is called on the overview. */
const POLICY_LABELS: Record<HoldCause, string> = {
  overlap: "overlap buffer",
  flow_control: "flow control key",
  tenant_limits: "tenant limits",
  host_throttled: "throttled host (it said to slow down)",
  backfill: "backfill",
  catch_up: "catch-up",
  misfire: "misfire (late fire, resume)",
};

/**
 * The scheduler's own lateness (from when each run could go out to its claim) beside what the jobs
 * asked for (overlap buffers, flow control, tenant limits, backfills, catch-up and misfire fires):
 * the second says nothing about how well we keep time, so it is never mixed into the first.
 */
export function LatenessChart({ lateness }: { lateness: LatenessSummary }) {
  const causes = HOLD_CAUSES.filter((cause) => lateness.byPolicy[cause] !== undefined);
  return (
    <div class="lateness-split">
      <div data-lateness="own">
        <h3>The scheduler's own ({runCount(lateness.scheduler.count)})</h3>
        <BarList
          id="lateness"
          title={`The scheduler's part of the lateness of ${lateness.scheduler.count} runs`}
          format={formatMs}
          rows={percentileRows(lateness.scheduler, "")}
        />
      </div>
      <div data-lateness="deliberate">
        <h3>Asked for by the jobs ({runCount(lateness.policy.count)})</h3>
        <BarList
          id="lateness-deliberate"
          title={`The jobs' own waits over ${lateness.policy.count} runs`}
          format={formatMs}
          rows={percentileRows(lateness.policy, "")}
        />
        <ul class="policy-causes" data-chart="lateness-causes">
          {causes.map((cause) => {
            const summary = lateness.byPolicy[cause];
            return (
              <li data-cause={cause}>
                {POLICY_LABELS[cause]}: {runCount(summary?.count ?? 0)}, p99 {formatMs(summary?.p99 ?? null)}
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}
