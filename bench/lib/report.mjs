// Percentiles, the lateness plot (hand-written SVG: a CDF per scenario) and the markdown summary.

/** p50/p90/p95/p99/max (and min, mean, count) of a list of numbers; nulls when empty. */
export function percentiles(values) {
  if (values.length === 0)
    return { p50: null, p90: null, p95: null, p99: null, max: null, min: null, count: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
    max: sorted[sorted.length - 1],
    min: sorted[0],
    mean: Math.round(sum / sorted.length),
    count: sorted.length,
  };
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];

/**
 * One CDF panel per series (lateness is on very different scales per scenario), side by side.
 * `series`: [{ name, values }]. Returns SVG text.
 */
export function latenessSvg(series, title) {
  const panelW = 420;
  const panelH = 300;
  const pad = { l: 60, r: 20, t: 40, b: 50 };
  const width = Math.max(720, panelW * Math.max(1, series.length));
  const height = panelH + 30;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="18" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  series.forEach((s, index) => {
    const x0 = index * panelW + pad.l;
    const y0 = 30 + pad.t;
    const w = panelW - pad.l - pad.r;
    const h = panelH - pad.t - pad.b;
    const sorted = Float64Array.from(s.values).sort();
    const color = COLORS[index % COLORS.length];
    const p = percentiles(s.values);
    parts.push(
      `<text x="${x0}" y="${y0 - 12}" font-size="12" font-weight="bold">${escapeXml(s.name)} (n=${sorted.length})</text>`,
    );
    if (sorted.length === 0) {
      parts.push(`<text x="${x0 + 10}" y="${y0 + h / 2}">no data</text>`);
      return;
    }
    const minV = Math.min(0, sorted[0]);
    const maxV = niceMax(sorted[sorted.length - 1]);
    const sx = (v) => x0 + ((v - minV) / (maxV - minV || 1)) * w;
    const sy = (q) => y0 + h - q * h;
    // axes and grid
    parts.push(`<rect x="${x0}" y="${y0}" width="${w}" height="${h}" fill="none" stroke="#999"/>`);
    for (let i = 0; i <= 4; i++) {
      const v = minV + ((maxV - minV) * i) / 4;
      parts.push(
        `<line x1="${sx(v)}" y1="${y0}" x2="${sx(v)}" y2="${y0 + h}" stroke="#eee"/>`,
        `<text x="${sx(v)}" y="${y0 + h + 14}" text-anchor="middle">${formatMs(v)}</text>`,
      );
      const q = i / 4;
      parts.push(
        `<line x1="${x0}" y1="${sy(q)}" x2="${x0 + w}" y2="${sy(q)}" stroke="#eee"/>`,
        `<text x="${x0 - 6}" y="${sy(q) + 4}" text-anchor="end">${Math.round(q * 100)}%</text>`,
      );
    }
    parts.push(
      `<text x="${x0 + w / 2}" y="${y0 + h + 32}" text-anchor="middle">lateness at target receipt</text>`,
    );
    // the CDF, downsampled to at most ~400 points
    const step = Math.max(1, Math.floor(sorted.length / 400));
    const points = [];
    for (let i = 0; i < sorted.length; i += step)
      points.push(`${sx(sorted[i]).toFixed(1)},${sy((i + 1) / sorted.length).toFixed(1)}`);
    points.push(`${sx(sorted[sorted.length - 1]).toFixed(1)},${sy(1).toFixed(1)}`);
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.join(" ")}"/>`);
    // percentile markers
    for (const [label, v] of [
      ["p50", p.p50],
      ["p99", p.p99],
    ]) {
      parts.push(
        `<line x1="${sx(v)}" y1="${y0}" x2="${sx(v)}" y2="${y0 + h}" stroke="${color}" stroke-dasharray="4 3"/>`,
        `<text x="${sx(v) + 3}" y="${label === "p50" ? y0 + h - 6 : y0 + 12}" fill="${color}">${label} ${formatMs(v)}</text>`,
      );
    }
  });
  parts.push("</svg>");
  return parts.join("\n");
}

function niceMax(v) {
  if (v <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * magnitude >= v) return m * magnitude;
  return 10 * magnitude;
}

function formatMs(v) {
  if (Math.abs(v) >= 10_000) return `${(v / 1000).toFixed(0)} s`;
  if (Math.abs(v) >= 1_000) return `${(v / 1000).toFixed(1)} s`;
  return `${Math.round(v)}`;
}

function escapeXml(text) {
  return String(text).replace(
    /[<>&"]/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c],
  );
}

const fmt = (v) =>
  v === null || v === undefined
    ? "–"
    : typeof v === "number"
      ? v.toLocaleString("en-US", { maximumFractionDigits: 1 })
      : String(v);

function latenessRow(name, l) {
  return `| ${name} | ${fmt(l?.p50)} | ${fmt(l?.p90)} | ${fmt(l?.p99)} | ${fmt(l?.max)} |`;
}

/** The markdown summary of one run (bench/results/latest.md). */
export function markdownSummary(result, svgName) {
  const lines = [
    `# edgecron bench — ${result.meta.started_at}`,
    "",
    `Command: \`${result.meta.command}\` (${result.meta.mode} mode). Machine: ${result.meta.machine}.`,
    `Runtime: ${result.meta.runtime}.`,
    "",
    "| scenario | result |",
    "|---|---|",
  ];
  const r = result;
  if (r.ceiling)
    lines.push(
      `| ceiling | sendBatch -> no-op consumer **${fmt(r.ceiling.msgs_per_s)} msgs/s**; sendBatch -> consumer -> pooled fetch to the target **${fmt(r.ceiling.fetch_msgs_per_s)} msgs/s** (${fmt(r.ceiling.msgs)} msgs each) |`,
    );
  if (r.create)
    lines.push(
      `| create | ${fmt(r.create.jobs)} jobs through POST /v1/jobs/batch: **${fmt(r.create.jobs_per_s)} jobs/s** |`,
    );
  if (r.burst)
    lines.push(
      `| burst | ${fmt(r.burst.jobs)} one-shot jobs due at one instant: drained at **${fmt(r.burst.drain_jobs_per_s)} jobs/s** (${fmt(r.burst.fraction_of_fetch_ceiling_pct)} % of the fetch ceiling), missed ${fmt(r.burst.missed)}, duplicates ${fmt(r.burst.duplicates)} |`,
    );
  if (r.steady)
    lines.push(
      `| steady | ${fmt(r.steady.jobs)} cron jobs every 10 s for ${fmt(r.steady.seconds)} s (${fmt(r.steady.expected)} instants): missed **${fmt(r.steady.missed)}**, duplicates **${fmt(r.steady.duplicates)}** |`,
    );
  if (r.scale)
    lines.push(
      `| scale | ${fmt(r.scale.jobs)} active jobs created in ${fmt(r.scale.create_seconds)} s (${fmt(r.scale.jobs_per_s)} jobs/s); workerd RSS **${fmt(r.scale.rss_mb)} MB** (peak ${fmt(r.scale.peak_rss_mb)} MB); ${fmt(r.scale.probes)} probes |`,
    );
  lines.push(
    "",
    "Lateness = target receipt time − `Edgecron-Scheduled-At`, in ms:",
    "",
    "| scenario | p50 | p90 | p99 | max |",
    "|---|---|---|---|---|",
  );
  if (r.burst) lines.push(latenessRow("burst", r.burst.lateness_ms));
  if (r.steady) lines.push(latenessRow("steady", r.steady.lateness_ms));
  if (r.scale) lines.push(latenessRow("scale probes", r.scale.probe_lateness_ms));
  if (svgName) lines.push("", `![lateness CDF](${svgName})`);
  if (r.notes?.length) lines.push("", "Notes:", "", ...r.notes.map((n) => `- ${n}`));
  lines.push("");
  return lines.join("\n");
}
