// Setup file (workers pool): after every integration test, no Durable Object alarm may be armed.
// Registered before any test file's hooks, so it runs after them (vitest runs after-hooks as a
// stack): a test's own clean-up has already happened. Files that declared
// disarmShardsAfterEach() are checked by their drain instead (see alarms.ts).
import { afterEach, expect } from "vitest";
import { loadsWorker } from "./test-kind";

afterEach(async (context) => {
  // Unit tests are pure: they touch no Durable Object, and reading 16 shards per table row is
  // waste. alarms.ts is imported only here: it loads the Worker, which a unit file never needs.
  if (!loadsWorker(context.task.file.filepath)) return;
  const { armedAlarms, describeAlarms, disarmAll, fileDrainsAlarms } = await import("./alarms");
  if (fileDrainsAlarms()) return;
  const armed = await armedAlarms();
  if (armed.length === 0) return;
  // Fail this test, not the next one: disarm before reporting.
  await disarmAll();
  expect.fail(
    `the test left alarms armed (${describeAlarms(armed, Date.now())}): run them with runDurableObjectAlarm, ` +
      "let the test's work finish, or call disarmShardsAfterEach() in a file whose tests leave scheduled jobs",
  );
});
