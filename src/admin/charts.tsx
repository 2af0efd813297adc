// Charts are plain server-rendered SVG (no library, no script). Shapes stretch with the card
// (preserveAspectRatio="none") while every number and label is real HTML text, so charts stay
// legible at 390 px and screen readers get the same figures.

import type { PercentileSummary } from "../core/percentiles";
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
            return (
              <g>
                <title>{`${formatUtcMinute(point.minute)}: ${point.triggers} triggers, ${point.failures} failures`}</title>
                {point.triggers > 0 ? (
                  <rect
                    x={x}
                    y={y(point.triggers)}
                    width={barWidth}
                    height={PLOT_HEIGHT - y(point.triggers)}
                    class="bar-triggers"
                  />
                ) : null}
                {point.failures > 0 ? (
                  <rect
                    x={x}
                    y={y(point.failures)}
                    width={barWidth}
                    height={PLOT_HEIGHT - y(point.failures)}
                    class="bar-failures"
                  />
                ) : null}
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

export interface LatenessByCause {
  /** Runs that were due and fired: any lateness is ours. */
  own: PercentileSummary;
  /** Backfills, catch-ups and misfires (after downtime past the grace, or on resume): late by request. */
  deliberate: PercentileSummary;
}

function percentileRows(summary: PercentileSummary, prefix: string) {
  return [
    { label: `${prefix}p50`, value: summary.p50, tone: "good" },
    { label: `${prefix}p90`, value: summary.p90, tone: "warn" },
    { label: `${prefix}p99`, value: summary.p99, tone: "bad" },
  ];
}

/**
 * Our own lateness (runs that were due and fired) beside deliberate late fires (backfills,
 * misfire catch-up, a paused job's missed instants fired on resume): the second says nothing
 * about how well we keep time, so it is never mixed into the first.
 */
export function LatenessChart({ lateness }: { lateness: LatenessByCause }) {
  return (
    <div class="lateness-split">
      <div data-lateness="own">
        <h3>Ours: due runs ({lateness.own.count})</h3>
        <BarList
          id="lateness"
          title={`Lateness percentiles over ${lateness.own.count} due runs`}
          format={formatMs}
          rows={percentileRows(lateness.own, "")}
        />
      </div>
      <div data-lateness="deliberate">
        <h3>Late on purpose ({lateness.deliberate.count})</h3>
        <BarList
          id="lateness-deliberate"
          title={`Lateness percentiles over ${lateness.deliberate.count} deliberately late runs`}
          format={formatMs}
          rows={percentileRows(lateness.deliberate, "")}
        />
      </div>
    </div>
  );
}
