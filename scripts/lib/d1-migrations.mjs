// Applies the D1 migrations to every D1 database in wrangler.toml: the control database `DB`
// (migrations/) and each job database DB_JOBS_n (migrations-jobs/), as `wrangler d1 migrations
// apply` does for one. The job databases are read from wrangler.toml so adding one needs no edit
// here. Runs the wrangler processes side by side (each is ~4 s of mostly start-up); one that
// fails is run again on its own, because side-by-side runtimes on one local state directory can
// collide on a SQLite lock (SQLITE_BUSY) that a second, lone attempt never meets. A real
// migration error fails both times and is reported.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { d1Databases } from "./wrangler-config.mjs";

/**
 * Runs `wrangler d1 migrations apply <binding> <where...>` for every D1 binding of `configPath`.
 * Resolves with their combined output; rejects with it if any fails.
 * @param {{ wrangler: string, cwd: string, env: NodeJS.ProcessEnv, configPath: string, where: string[] }} options
 * @returns {Promise<string>}
 */
export async function applyAllD1Migrations({ wrangler, cwd, env, configPath, where }) {
  const bindings = d1Databases(readFileSync(configPath, "utf8")).map((db) => db.binding);
  const apply = (/** @type {string} */ binding) => applyOne({ wrangler, cwd, env, where, binding });
  const results = await Promise.all(bindings.map(apply));
  for (const [index, result] of results.entries()) {
    if (result.status !== 0) results[index] = await apply(result.binding);
  }
  const output = results.map((result) => `[${result.binding}]\n${result.output}`).join("\n");
  if (results.some((result) => result.status !== 0)) throw new Error(`D1 migrations failed:\n${output}`);
  return output;
}

/**
 * One `wrangler d1 migrations apply`; never rejects.
 * @param {{ wrangler: string, cwd: string, env: NodeJS.ProcessEnv, where: string[], binding: string }} options
 * @returns {Promise<{ binding: string, status: number | null, output: string }>}
 */
function applyOne({ wrangler, cwd, env, where, binding }) {
  return new Promise((resolve) => {
    const child = spawn(wrangler, ["d1", "migrations", "apply", binding, ...where], { cwd, env });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (status) => resolve({ binding, status, output }));
  });
}
