import type { Schedule } from "../../client/index";
import { type Command, intFlag, printJson, stringFlag, UsageError } from "../context";
import { formatInZone, renderTable } from "../render";

export const previewCommand: Command = {
  path: ["preview"],
  args: '("<cron expr>" [--tz <zone>] | --every <dur>) [--count <n>] [--from <instant>]',
  summary: "show the next fire times of a schedule",
  details: ['example: edgecron preview "0 9 * * MON-FRI" --tz Europe/Berlin --count 10'],
  options: {
    tz: { type: "string" },
    every: { type: "string" },
    count: { type: "string" },
    from: { type: "string" },
  },
  positionals: [0, 1],
  async run(ctx) {
    const expr = ctx.positionals[0];
    const every = stringFlag(ctx.values, "every");
    if ((expr === undefined) === (every === undefined)) {
      throw new UsageError('give a cron expression ("0 9 * * *") or --every <duration>');
    }
    const timezone = stringFlag(ctx.values, "tz") ?? "UTC";
    const schedule: Schedule =
      expr !== undefined ? { type: "cron", expr, timezone } : { type: "interval", every: every ?? "" };
    const count = intFlag(ctx.values, "count", { min: 1, max: 1000 });
    const from = stringFlag(ctx.values, "from");
    const result = await ctx.client().previewSchedule({
      schedule,
      ...(count ? { count } : {}),
      ...(from ? { from } : {}),
    });
    if (ctx.json) {
      printJson(ctx.io, result);
      return 0;
    }
    const rows = result.fire_times.map((instant, index) => ({ index: index + 1, instant }));
    ctx.io.stdout.write(
      renderTable(
        [
          { header: "#", value: (row) => row.index },
          { header: "UTC", value: (row) => row.instant },
          { header: timezone, value: (row) => formatInZone(row.instant, timezone) },
        ],
        rows,
        "never fires",
      ),
    );
    return 0;
  },
};
