// Test-only switches for fault injection and inspection (which faults exist: src/test-faults.ts).
// Mounted only when the EDGECRON_TEST_HOOKS binding is "1" (vitest config, e2e harness) and still
// requires the admin token: never reachable in a real deployment.
import { Hono } from "hono";
import { injectFaults, loseShardAlarm } from "../../service/fault-injection";
import type { ConsumerFaults, ShardFaults } from "../../test-faults";

export const testHooks = new Hono<{ Bindings: Env }>();

testHooks.use("*", async (c, next) => {
  if (c.env.EDGECRON_TEST_HOOKS !== "1") return c.notFound();
  if (
    c.req.header("authorization") !== `Bearer ${c.env.EDGECRON_ADMIN_TOKEN}` ||
    !c.env.EDGECRON_ADMIN_TOKEN
  ) {
    return c.json({ error: "unauthorized" }, 401);
  }
  await next();
});

testHooks.post("/__test/maintenance", async (c) => {
  return c.json(await c.env.MAINTENANCE.getByName("maintenance").runNow());
});

testHooks.post("/__test/shards/:shard/delete-alarm", async (c) => {
  const shard = Number(c.req.param("shard"));
  const lostForMs = Number(c.req.query("lost_for_ms") ?? 0);
  await loseShardAlarm(c.env, shard, lostForMs);
  return c.json({ ok: true });
});

testHooks.post("/__test/shards/:shard/faults", async (c) => {
  const shard = Number(c.req.param("shard"));
  await injectFaults(c.env, shard, await c.req.json<ShardFaults>());
  return c.json({ ok: true });
});

testHooks.post("/__test/consumer/faults", async (c) => {
  await injectFaults(c.env, "consumer", await c.req.json<ConsumerFaults>());
  return c.json({ ok: true });
});
