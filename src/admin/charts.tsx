// Charts are plain server-rendered SVG (no library, no script) with a text equivalent beside them.
import { formatMs, formatUtcMinute } from "./format";
import type { Stats } from "./types";

const WIDTH = 600;
const HEIGHT = 180;
const PAD = { top: 12, right: 8, bottom: 28, left: 36 };

export function PerMinuteChart({ points }: { points: Stats["per_minute"] }) {
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const max = Math.max(1, ...points.map((point) => point.triggers));
  const slot = plotWidth / Math.max(points.length, 1);
  const barWidth = Math.max(1, slot * 0.75);
  const y = (value: number) => PAD.top + plotHeight - (value / max) * plotHeight;
  const totalTriggers = points.reduce((sum, point) => sum + point.triggers, 0);
  const totalFailures = points.reduce((sum, point) => sum + point.failures, 0);
  const first = points[0];
  const last = points[points.length - 1];
  const summary = `${totalTriggers} triggers and ${totalFailures} failures in the last ${points.length} minutes${
    first && last ? ` (${formatUtcMinute(first.minute)} to ${formatUtcMinute(last.minute)})` : ""
  }; busiest minute ${max === 1 && totalTriggers === 0 ? 0 : max} triggers.`;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby="pm-title pm-desc"
        data-chart="per-minute"
      >
        <title id="pm-title">Triggers and failures per minute</title>
        <desc id="pm-desc">{summary}</desc>
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(0)} y2={y(0)} class="axis" />
        <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(max)} y2={y(max)} class="grid" />
        <text x={PAD.left - 4} y={y(max) + 4} text-anchor="end" class="tick">
          {max}
        </text>
        <text x={PAD.left - 4} y={y(0) + 4} text-anchor="end" class="tick">
          0
        </text>
        {points.map((point, index) => {
          const x = PAD.left + index * slot + (slot - barWidth) / 2;
          return (
            <g>
              {point.triggers > 0 ? (
                <rect
                  x={x}
                  y={y(point.triggers)}
                  width={barWidth}
                  height={y(0) - y(point.triggers)}
                  class="bar-triggers"
                >
                  <title>{`${formatUtcMinute(point.minute)}: ${point.triggers} triggers, ${point.failures} failures`}</title>
                </rect>
              ) : null}
              {point.failures > 0 ? (
                <rect
                  x={x}
                  y={y(point.failures)}
                  width={barWidth}
                  height={y(0) - y(point.failures)}
                  class="bar-failures"
                />
              ) : null}
              {index % 15 === 0 || index === points.length - 1 ? (
                <text x={x + barWidth / 2} y={HEIGHT - 8} text-anchor="middle" class="tick">
                  {formatUtcMinute(point.minute).replace(" UTC", "")}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="legend legend-triggers">Triggers</span>{" "}
        <span class="legend legend-failures">Failures</span>{" "}
        <span class="muted">per minute, times in UTC</span>
        <p class="muted small-text">{summary}</p>
      </figcaption>
    </figure>
  );
}

/** Horizontal bars for a small set of labelled values (jobs by status, lateness percentiles). */
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
  const rowHeight = 26;
  const labelWidth = 130;
  const valueWidth = 80;
  const barSpace = WIDTH - labelWidth - valueWidth;
  const height = Math.max(rowHeight, rows.length * rowHeight);
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${height}`}
      role="img"
      aria-labelledby={`${id}-title`}
      class="barlist"
      data-chart={id}
    >
      <title id={`${id}-title`}>
        {`${title}: ${rows.map((row) => `${row.label} ${row.value === null ? "n/a" : format(row.value)}`).join(", ")}`}
      </title>
      {rows.map((row, index) => {
        const width = row.value ? Math.max(2, (row.value / max) * barSpace) : 0;
        const top = index * rowHeight;
        return (
          <g>
            <text x={0} y={top + 17} class="label">
              {row.label}
            </text>
            <rect x={labelWidth} y={top + 5} width={barSpace} height={16} class="track" />
            <rect
              x={labelWidth}
              y={top + 5}
              width={width}
              height={16}
              class={`bar tone-${row.tone ?? "default"}`}
            />
            <text x={WIDTH} y={top + 17} text-anchor="end" class="value">
              {row.value === null ? "—" : format(row.value)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function LatenessChart({ lateness }: { lateness: Stats["lateness_ms"] }) {
  return (
    <BarList
      id="lateness"
      title={`Lateness percentiles over ${lateness.count} runs`}
      format={formatMs}
      rows={[
        { label: "p50", value: lateness.p50, tone: "good" },
        { label: "p90", value: lateness.p90, tone: "warn" },
        { label: "p99", value: lateness.p99, tone: "bad" },
      ]}
    />
  );
}
