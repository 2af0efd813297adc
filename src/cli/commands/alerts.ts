import type { Alert, AlertKind, AlertState } from "../../client/index";
import { ALERT_KINDS, ALERT_STATES } from "../../core/alerts/alerts";
import {
  type Command,
  collect,
  filterFlag,
  intFlag,
  printJson,
  printPage,
  stringFlag,
  UsageError,
} from "../context";
import { renderKeyValues } from "../render";

const ALERT_COLUMNS = [
  { header: "ID", value: (alert: Alert) => alert.id, maxWidth: 40 },
  { header: "STATE", value: (alert: Alert) => alert.state },
  { header: "KIND", value: (alert: Alert) => alert.kind },
  { header: "JOB", value: (alert: Alert) => alert.job_id, maxWidth: 40 },
  { header: "CREATED AT", value: (alert: Alert) => alert.created_at },
  { header: "DELIVERY", value: (alert: Alert) => alert.delivery },
  { header: "MESSAGE", value: (alert: Alert) => alert.message, maxWidth: 60 },
];

/** The flag's value if it is one of `allowed`, else a usage error naming them. */
function oneOf<T extends string>(
  value: string | undefined,
  flag: string,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}`);
  return value as T;
}

const alertsList: Command = {
  path: ["alerts", "list"],
  args: "[--state open|acknowledged|resolved] [--kind <kind>] [--limit <n>] [--cursor <c>] [--all]",
  summary: "alerts, newest first (open ones with --state open)",
  details: [`kinds: ${ALERT_KINDS.join(", ")}`],
  options: {
    state: { type: "string" },
    kind: { type: "string" },
    limit: { type: "string" },
    cursor: { type: "string" },
    all: { type: "boolean" },
  },
  positionals: [0, 0],
  async run(ctx) {
    const params = {
      state: oneOf<AlertState>(filterFlag(ctx.values, "state"), "state", ALERT_STATES),
      kind: oneOf<AlertKind>(filterFlag(ctx.values, "kind"), "kind", ALERT_KINDS),
      limit: intFlag(ctx.values, "limit", { min: 1, max: 200 }),
      cursor: stringFlag(ctx.values, "cursor"),
    };
    const alerts = ctx.client().alerts;
    const page = ctx.values.all
      ? { data: await collect(alerts.all(params)), next_cursor: null }
      : await alerts.list(params);
    printPage(ctx, page, ALERT_COLUMNS, "no alerts");
    return 0;
  },
};

function printAlert(alert: Alert): string {
  return renderKeyValues([
    ["id", alert.id],
    ["state", alert.state],
    ["kind", alert.kind],
    ["job", alert.job_id],
    ["message", alert.message],
    ["acknowledged at", alert.acknowledged_at],
    ["resolved at", alert.resolved_at],
    ["resolution", alert.resolution],
  ]);
}

/** `alerts ack` and `alerts resolve`: idempotent, so repeating one is harmless. */
function alertAction(verb: "ack" | "resolve", summary: string): Command {
  return {
    path: ["alerts", verb],
    args: "<alert-id>",
    summary,
    options: {},
    positionals: [1, 1],
    async run(ctx) {
      const id = ctx.positionals[0] ?? "";
      const alerts = ctx.client().alerts;
      const alert = verb === "ack" ? await alerts.acknowledge(id) : await alerts.resolve(id);
      if (ctx.json) printJson(ctx.io, alert);
      else ctx.io.stdout.write(printAlert(alert));
      return 0;
    },
  };
}

export const alertCommands: Command[] = [
  alertsList,
  alertAction("ack", "acknowledge an alert (seen; it stays unresolved)"),
  alertAction("resolve", "resolve an alert"),
];
