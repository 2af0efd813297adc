import type { Alert, AlertKind, AlertState } from "../../client/index";
import { ALERT_KINDS, ALERT_STATES } from "../../core/alerts/alerts";
import { type Command, printJson } from "../context";
import { oneOfFlag, PAGE_OPTIONS, pageParams, printList } from "../list-command";
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

const alertsList: Command = {
  path: ["alerts", "list"],
  args: "[--state open|acknowledged|resolved] [--kind <kind>] [--limit <n>] [--cursor <c>] [--all]",
  summary: "alerts, newest first (open ones with --state open)",
  details: [`kinds: ${ALERT_KINDS.join(", ")}`],
  options: { state: { type: "string" }, kind: { type: "string" }, ...PAGE_OPTIONS },
  positionals: [0, 0],
  async run(ctx) {
    const params = {
      state: oneOfFlag<AlertState>(ctx.values, "state", ALERT_STATES),
      kind: oneOfFlag<AlertKind>(ctx.values, "kind", ALERT_KINDS),
      ...pageParams(ctx.values),
    };
    return printList(ctx, ctx.client().alerts, params, ALERT_COLUMNS, "no alerts");
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
