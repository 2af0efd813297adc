// Pure helpers of `npm run deploy:setup`: read the ids wrangler prints and write them into
// wrangler.toml without disturbing anything else in the file (comments, order, other bindings).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KV_ID = /^[0-9a-f]{32}$/i;

/**
 * The D1 database id in the output of `wrangler d1 create` (a TOML or JSON snippet).
 * @param {string} output
 * @returns {string | null}
 * @example parseD1DatabaseId('database_id = "0f2c...-..."') // "0f2c...-..."
 */
export function parseD1DatabaseId(output) {
  const match = /"?database_id"?\s*[:=]\s*"([0-9a-f-]{36})"/i.exec(output);
  return match?.[1] && UUID.test(match[1]) ? match[1] : null;
}

/**
 * The namespace id in the output of `wrangler kv namespace create` (`id = "<32 hex>"` or JSON).
 * @param {string} output
 * @returns {string | null}
 */
export function parseKvNamespaceId(output) {
  const match = /(?<![\w-])"?id"?\s*[:=]\s*"([0-9a-f]{32})"/i.exec(output);
  return match?.[1] ?? null;
}

/**
 * The id of the database named `name` in `wrangler d1 list --json`.
 * @param {string} listJson
 * @param {string} name
 * @returns {string | null}
 */
export function findD1DatabaseId(listJson, name) {
  const list = parseJsonArray(listJson);
  const found = list.find((db) => db?.name === name);
  return typeof found?.uuid === "string" ? found.uuid : null;
}

/**
 * The id of the namespace titled `title` in `wrangler kv namespace list` (a JSON array).
 * @param {string} listJson
 * @param {string} title
 * @returns {string | null}
 */
export function findKvNamespaceId(listJson, title) {
  const list = parseJsonArray(listJson);
  const found = list.find((ns) => ns?.title === title);
  return typeof found?.id === "string" ? found.id : null;
}

/**
 * @param {string} text
 * @returns {any[]} parsed JSON values of unknown shape, checked field by field by the callers
 */
function parseJsonArray(text) {
  // wrangler may print a banner before the JSON: start at the first "[".
  const start = text.indexOf("[");
  if (start < 0) return [];
  try {
    const value = JSON.parse(text.slice(start));
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/**
 * @typedef {object} ResourceIds
 * @property {string} [d1DatabaseId] written as `database_id` of the `[[d1_databases]]` with binding `d1Binding`
 * @property {string} [kvNamespaceId] written as `id` of the `[[kv_namespaces]]` with binding `kvBinding`
 * @property {Record<string, string>} [d1DatabaseIds] more D1 ids by binding (the job databases DB_JOBS_n)
 * @property {string} [d1Binding] default "DB"
 * @property {string} [kvBinding] default "DEDUP_KV"
 */

/**
 * Returns wrangler.toml with the given ids in place; everything else is kept byte for byte.
 * Throws when a binding's table is missing or an id is malformed, so a deploy never runs
 * against placeholder ids by accident.
 * @param {string} toml
 * @param {ResourceIds} ids
 * @returns {string}
 */
export function rewriteWranglerToml(toml, ids) {
  const lines = toml.split("\n");
  if (ids.d1DatabaseId !== undefined) {
    if (!UUID.test(ids.d1DatabaseId)) throw new Error(`not a D1 database id: ${ids.d1DatabaseId}`);
    setKey(lines, "d1_databases", ids.d1Binding ?? "DB", "database_id", ids.d1DatabaseId);
  }
  for (const [binding, id] of Object.entries(ids.d1DatabaseIds ?? {})) {
    if (!UUID.test(id)) throw new Error(`not a D1 database id: ${id}`);
    setKey(lines, "d1_databases", binding, "database_id", id);
  }
  if (ids.kvNamespaceId !== undefined) {
    if (!KV_ID.test(ids.kvNamespaceId)) throw new Error(`not a KV namespace id: ${ids.kvNamespaceId}`);
    setKey(lines, "kv_namespaces", ids.kvBinding ?? "DEDUP_KV", "id", ids.kvNamespaceId);
  }
  return lines.join("\n");
}

/**
 * Sets `key = "value"` in the `[[table]]` block whose `binding` is `binding`: replaces the line
 * (keeping its indentation and trailing comment) or adds it after the binding line.
 * @param {string[]} lines
 * @param {string} table
 * @param {string} binding
 * @param {string} key
 * @param {string} value
 */
function setKey(lines, table, binding, key, value) {
  const block = findBlock(lines, table, binding);
  if (!block) throw new Error(`wrangler.toml has no [[${table}]] with binding = "${binding}"`);
  const keyLine = new RegExp(`^(\\s*${key}\\s*=\\s*)"[^"]*"(.*)$`);
  for (let i = block.start; i < block.end; i++) {
    const match = keyLine.exec(lines[i] ?? "");
    if (match) {
      lines[i] = `${match[1]}"${value}"${match[2]}`;
      return;
    }
  }
  lines.splice(block.bindingLine + 1, 0, `${key} = "${value}"`);
}

/**
 * @param {string[]} lines
 * @param {string} table
 * @param {string} binding
 * @returns {{ start: number, end: number, bindingLine: number } | null}
 */
function findBlock(lines, table, binding) {
  const header = /^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$/;
  const bindingLine = new RegExp(`^\\s*binding\\s*=\\s*"${binding}"\\s*(#.*)?$`);
  for (let start = 0; start < lines.length; start++) {
    const match = header.exec(lines[start] ?? "");
    if (match?.[1] !== table || !(lines[start] ?? "").includes("[[")) continue;
    let end = start + 1;
    while (end < lines.length && !header.test(lines[end] ?? "")) end++;
    for (let i = start + 1; i < end; i++) {
      if (bindingLine.test(lines[i] ?? "")) return { start: start + 1, end, bindingLine: i };
    }
  }
  return null;
}

/**
 * The blocks of one array table (`[[d1_databases]]`, `[[queues.producers]]`) as key -> string value.
 * @param {string} toml
 * @param {string} table
 * @returns {Record<string, string>[]}
 */
function arrayTables(toml, table) {
  const header = /^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$/;
  /** @type {Record<string, string>[]} */
  const blocks = [];
  /** @type {Record<string, string> | null} */
  let current = null;
  for (const line of toml.split("\n")) {
    const match = header.exec(line);
    if (match) {
      current = match[1] === table && line.includes("[[") ? {} : null;
      if (current) blocks.push(current);
      continue;
    }
    const pair = /^\s*([A-Za-z0-9_]+)\s*=\s*"([^"]*)"/.exec(line);
    if (current && pair?.[1] && pair[2] !== undefined) current[pair[1]] = pair[2];
  }
  return blocks;
}

/**
 * The D1 databases a wrangler.toml declares, in file order.
 * @param {string} toml
 * @returns {{ binding: string, name: string }[]}
 * @example d1Databases('[[d1_databases]]\nbinding = "DB"\ndatabase_name = "edgecron"') // [{ binding: "DB", name: "edgecron" }]
 */
export function d1Databases(toml) {
  return arrayTables(toml, "d1_databases").flatMap((block) =>
    block.binding && block.database_name ? [{ binding: block.binding, name: block.database_name }] : [],
  );
}

/**
 * Every queue a wrangler.toml produces to (the dispatch queues and the dead-letter queue).
 * @param {string} toml
 * @returns {string[]}
 */
export function producerQueues(toml) {
  return arrayTables(toml, "queues.producers").flatMap((block) => (block.queue ? [block.queue] : []));
}
