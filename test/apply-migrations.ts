import { applyD1Migrations, env } from "cloudflare:test";

// Setup files run outside isolated storage and may run several times; applyD1Migrations only
// applies what is not applied yet.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS ?? []);
