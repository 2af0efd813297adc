import { app } from "./api/app";

export { Maintenance } from "../durable-objects/maintenance";
export { ShardScheduler } from "../durable-objects/shard-scheduler";

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
