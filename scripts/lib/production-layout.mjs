// The production layout as code: wrangler.toml's bindings and settings at the scale the capacity
// model (`npm run simulate`) plans for, written to wrangler.production.toml. The repository's
// wrangler.toml keeps the small local layout (16 shards, 2 job databases, 2 dispatch queues);
// everything else (secrets, Durable Objects, the other queues, triggers) is copied as it is.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export const PRODUCTION_CONFIG = "wrangler.production.toml";

/**
 * @typedef {{ shards: number, jobDatabases: number, dispatchQueues: number, runsPerMessage: number,
 *   maxBatchSize: number, dispatchersPerShard: number, lane: string }} Layout
 */

/**
 * The model's plan for the target scale (flags as `npm run simulate` takes them), on the
 * committed bench sample unless `--input` names other results, so the layout does not drift with
 * whatever local bench ran last.
 * @param {string} root
 * @param {string[]} [simulateArgs]
 * @returns {Layout}
 */
export function plannedLayout(root, simulateArgs = []) {
  const input = simulateArgs.includes("--input") ? [] : ["--input", join(root, "docs", "bench-sample.json")];
  const script = join(root, "bench", "simulate.mjs");
  const output = execFileSync(process.execPath, [script, "--json", ...input, ...simulateArgs], {
    encoding: "utf8",
  });
  const { plan } = JSON.parse(output);
  return {
    shards: plan.shards.recommended,
    jobDatabases: plan.d1.job_databases,
    dispatchQueues: plan.lane.layout.dispatch_queues,
    runsPerMessage: plan.lane.layout.runs_per_message,
    maxBatchSize: plan.lane.layout.max_batch_size,
    dispatchersPerShard: plan.lane.layout.dispatchers_per_shard,
    lane: plan.lane.chosen,
  };
}

// A block: its comment lines, its header and first line, the lines up to a blank one, that one.
/** @param {string} head */
const block = (head) => new RegExp(`(?:^#[^\\n]*\\n)*${head}\\n(?:[^\\n]+\\n)*\\n?`, "gm");
const JOB_DATABASE_BLOCK = block('\\[\\[d1_databases\\]\\]\\nbinding = "DB_JOBS_\\d+"');
const DISPATCH_PRODUCER_BLOCK = block(
  '\\[\\[queues\\.producers\\]\\]\\nbinding = "DISPATCH_QUEUE(?:_\\d+)?"',
);
const DISPATCH_CONSUMER_BLOCK = block(
  '\\[\\[queues\\.consumers\\]\\]\\nqueue = "edgecron-dispatch(?:-\\d+)?"',
);

/**
 * @param {string} toml
 * @param {string} name
 * @param {number | string} value
 */
function setVar(toml, name, value) {
  const line = new RegExp(`^${name} = ".*"$`, "m");
  if (!line.test(toml)) throw new Error(`wrangler.toml has no ${name} in [vars]`);
  return toml.replace(line, `${name} = "${value}"`);
}

/** @param {number} i */
const queueName = (i) => (i === 0 ? "edgecron-dispatch" : `edgecron-dispatch-${i}`);
/** @param {number} i */
const queueBinding = (i) => (i === 0 ? "DISPATCH_QUEUE" : `DISPATCH_QUEUE_${i}`);
/**
 * Placeholder ids in the pattern of wrangler.toml's; `npm run deploy:setup` writes real ones.
 * @param {number} i
 */
const placeholderDatabaseId = (i) => `00000000-0000-0000-0000-${(0x10 + i).toString(16).padStart(12, "0")}`;

/** @param {number} count */
function jobDatabaseBlocks(count) {
  return Array.from(
    { length: count },
    (_, i) => `[[d1_databases]]
binding = "DB_JOBS_${i}"
database_name = "edgecron-jobs-${i}"
database_id = "${placeholderDatabaseId(i)}"
migrations_dir = "migrations-jobs"
`,
  ).join("\n");
}

/** @param {Layout} layout */
function dispatchQueueBlocks(layout) {
  const producers = Array.from(
    { length: layout.dispatchQueues },
    (_, i) => `[[queues.producers]]
binding = "${queueBinding(i)}"
queue = "${queueName(i)}"
`,
  );
  const consumers = Array.from(
    { length: layout.dispatchQueues },
    (_, i) => `[[queues.consumers]]
queue = "${queueName(i)}"
max_batch_size = ${layout.maxBatchSize}
max_batch_timeout = 0
max_retries = 3
dead_letter_queue = "edgecron-dead-letters"
`,
  );
  return [...producers, ...consumers].join("\n");
}

/** How far ahead the pool lane hands runs over (the model needs ≥ 250 ms to wake a dispatcher). */
const POOL_LEAD_MS = 1_000;

/**
 * wrangler.production.toml's text: `baseToml` (wrangler.toml) at the planned layout.
 * @param {string} baseToml
 * @param {Layout} layout
 */
export function productionLayout(baseToml, layout) {
  let toml = baseToml
    .replace(JOB_DATABASE_BLOCK, "")
    .replace(DISPATCH_PRODUCER_BLOCK, "")
    .replace(DISPATCH_CONSUMER_BLOCK, "");
  toml = setVar(toml, "SHARD_COUNT", layout.shards);
  toml = setVar(toml, "JOB_DATABASES", layout.jobDatabases);
  toml = setVar(toml, "DISPATCH_QUEUES", layout.dispatchQueues);
  toml = setVar(toml, "DISPATCH_RUNS_PER_MESSAGE", layout.runsPerMessage);
  toml = setVar(toml, "DISPATCH_LANE", layout.lane);
  toml = setVar(toml, "DISPATCHERS_PER_SHARD", layout.dispatchersPerShard);
  // The pool takes runs due within a second (a message with a delay goes to the queue): runs are
  // created and handed over at most that far ahead, so a burst's runs reach the dispatchers.
  if (layout.lane === "pool") toml = setVar(toml, "DISPATCH_LEAD_MS", POOL_LEAD_MS);
  const header = `# GENERATED by \`npm run deploy:setup -- --scale production\` (scripts/lib/production-layout.mjs)
# from wrangler.toml and the capacity model (\`npm run simulate\`): ${layout.shards} shards, ${layout.jobDatabases} job
# databases, ${layout.dispatchQueues} dispatch queues (max_batch_size ${layout.maxBatchSize}, ${layout.runsPerMessage} runs per message), lane "${layout.lane}"
# with ${layout.dispatchersPerShard} dispatchers per shard. Do not edit: change wrangler.toml or the model, then regenerate.
`;
  const generated = `
# Job databases and dispatch queues at the planned scale.
${jobDatabaseBlocks(layout.jobDatabases)}
${dispatchQueueBlocks(layout)}`;
  return `${header}${toml.trimEnd()}\n${generated}`;
}
