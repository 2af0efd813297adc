#!/usr/bin/env node
// The house rules that imports and call sites can show, checked on every `npm run check`:
//   1. no import cycle in src/ or durable-objects/ (madge; type-only imports count, because a
//      type cycle is still two modules that cannot be read or moved apart);
//   2. D1 statements (`.prepare(`) only in src/db/; statements that write the `runs` table of a
//      shard's schema v23 (UPDATE, INSERT, DELETE) only where its rows are read once into memory
//      and deleted (durable-objects/shard/store/legacy-state.ts), and the tests' view of the shard
//      as those tables (durable-objects/shard/test-tables.ts): runs live in memory now, changed
//      only through durable-objects/shard/state/;
//   3. shards only through src/shard/client.ts and its two siblings for run history and test hooks
//      (`shardStub` and the `SHARD_SCHEDULER` binding appear nowhere else), flow gates only through src/gate/client.ts (`gateStub`, `FLOW_GATE`);
//      the generated Env typings live outside the scanned folders;
//   4. src/core imports only luxon, zod and itself;
//   5. the programs for users (src/client, the typed client; src/cli, the CLI) and the Worker
//      stay apart: Worker code never imports them, except src/client/verify.ts (the signature
//      format, one definition for the sender and every receiver); the client imports nothing of
//      the Worker but types (`import type`, erased from its bundle); the CLI only itself, the
//      client, the pure core and types; the console (src/console) takes the API's shapes from the
//      client's types (`import type` of src/client/types.ts), so they are written once;
//   6. rooms import only the rooms below them (ROOMS): the pure core at the bottom, then the shared
//      basics, the shard and gate protocols, the D1 layer and the Durable Object clients, what goes
//      on the queues (src/queue), then the application layer (src/service) that every door calls,
//      then the doors (the HTTP plumbing under the v1 and QStash APIs, the console, the delivery
//      door src/delivery with the queue consumers, the maintenance pass) and the Durable Objects
//      themselves. The HTTP doors (src/api, src/console) never import the shard client, src/db,
//      the gate client nor the queues' senders: they reach D1, a shard, a gate and a queue
//      through src/service.
//      Doors never import each other: what two doors share belongs in src/service or below.
//      Type-only imports count too;
//   7. migrations are append-only: D1 migration files and Durable Object schema entries match the
//      hashes in scripts/schema-lock.json, and a new one sorts after every locked one
//      (scripts/lib/schema-lock.mjs);
//   8. every path a doc or a comment names exists (scripts/lib/stale-paths.mjs): README.md,
//      docs/*.md, the READMEs beside the code and the comments of src/, durable-objects/, scripts/
//      and bench/. A stale path fails the check like any other rule; CHECK_STALE_PATHS=0 only
//      reports them (while a move is under way on a branch);
//   9. the pure core's sub-rooms are layers (CORE_LAYERS, lowest first): a file of src/core lives
//      in a sub-room and imports only its own and those of lower layers, so no two of them import
//      each other (a job's spec on top of the schedules, runs and targets it is made of);
//  10. the shard's sub-rooms are layers too (SHARD_LAYERS, lowest first): a file in a sub-room of
//      durable-objects/shard imports only its own and those of lower layers (the storage and the
//      plain records at the bottom, the job changes and the tz database's re-derivation on top);
//      the shard's top-level files (the Durable Object class, its alarm pass, the write-behind)
//      sit above every sub-room and may import any of them.
// Call sites are found in the TypeScript syntax tree, so comments and strings never count.
//
// Usage: node scripts/check-structure.mjs [--root DIR]
// Exit 0 when clean, 1 with a list of every violation otherwise.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import madge from "madge";
import ts from "typescript";
import { checkMigrations } from "./lib/schema-lock.mjs";
import { findStalePaths } from "./lib/stale-paths.mjs";

const SCANNED_DIRS = ["src", "durable-objects"];
const SOURCE_EXTENSIONS = [".ts", ".tsx"];
const CORE_DIR = "src/core";
const CORE_PACKAGES = ["luxon", "zod"];
/**
 * Rule 9: src/core's sub-rooms, lowest layer first. A file imports its own sub-room and those
 * of lower layers only, so two sub-rooms of one layer never import each other.
 */
const CORE_LAYERS = [
  ["common"],
  ["cron", "targets", "trace", "alerts"],
  ["runs", "schedules", "qstash"],
  ["load"],
  ["jobs"],
  ["schedule-file"],
];
const SHARD_DIR = "durable-objects/shard";
/**
 * Rule 10: the shard's sub-rooms, lowest layer first (durable-objects/shard/README.md says what
 * each holds). Its top-level files are above them all.
 */
const SHARD_LAYERS = [
  ["store", "records"],
  ["state"],
  ["history", "jobs"],
  ["flow", "instants"],
  ["runs", "dispatch"],
  ["wheel"],
  ["job-changes", "tzdata"],
];
const D1_DIR = "src/db";
/** Wraps every D1 binding's `prepare` to count rows written (it prepares nothing of its own). */
const D1_METER = "src/rows-meter.ts";
/** The shard client: its calls, split by what they are for, share client.ts's stub. */
const SHARD_CLIENTS = ["src/shard/client.ts", "src/shard/history-client.ts", "src/shard/test-hook-client.ts"];
/** Rule 2's second half: who may write the shard's v23 runs table. */
const RUN_WRITERS = [
  "durable-objects/shard/store/legacy-state.ts",
  "durable-objects/shard/test-tables.ts",
  "durable-objects/shard/schema.ts",
];
const RUNS_WRITE = /\b(UPDATE|INSERT(\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|DELETE\s+FROM)\s+runs\b/i;
/** Durable Objects reached only through their client module: who, where, and the names that reach them. */
const STUB_RULES = [
  { what: "shard", clients: SHARD_CLIENTS, identifiers: new Set(["shardStub", "SHARD_SCHEDULER"]) },
  { what: "flow gate", clients: ["src/gate/client.ts"], identifiers: new Set(["gateStub", "FLOW_GATE"]) },
];
const CLIENT_DIR = "src/client";
const CLI_DIR = "src/cli";
/** The one client module the Worker may import: the signature format it signs with. */
const CLIENT_SHARED_WITH_WORKER = "src/client/verify.ts";
/** The client's types, which the console reads the API with (type-only imports). */
const CLIENT_TYPES = "src/client/types.ts";
const CONSOLE_DIR = "src/console";

/**
 * Rule 6: every file of src/ and durable-objects/ is in one room (the first whose path matches);
 * a room may import itself and the rooms in its `may` list, nothing else. The programs for users
 * (src/client, src/cli) are rule 5's.
 */
const LOWER = ["core", "basics"];
const STORES = [...LOWER, "protocols", "db", "shard-client", "gate-client"];
/**
 * What the HTTP doors (the APIs and the console) may use below the service: no store, only the
 * core, the basics and the protocols' plain records. They ask the service (src/service), which
 * reads and writes D1 and calls the shard and the gates (a job's writes, a run's callbacks, a
 * tenant's suspension, weight and limits, flow-control keys, tzdata...).
 */
const HTTP_DOOR_STORES = [...LOWER, "protocols"];
const ROOMS = [
  { room: "core", paths: ["src/core"], may: [] },
  {
    room: "basics",
    paths: ["src/log.ts", "src/tzdata.ts", "src/run-tokens.ts", "src/rows-meter.ts", "src/env.d.ts"],
    may: ["core"],
  },
  // Plain records that cross rooms: what the shards and gates are asked and answer, and the
  // faults a test injects (into a shard or the dispatch consumer, through src/service).
  {
    room: "protocols",
    paths: [
      "src/shard/protocol.ts",
      "src/shard/history-protocol.ts",
      "src/gate/protocol.ts",
      "src/test-faults.ts",
    ],
    may: LOWER,
  },
  // src/db stores the shard protocol's plain records (a run's history row, a job's calendars).
  { room: "db", paths: ["src/db"], may: [...LOWER, "protocols"] },
  { room: "shard-client", paths: ["src/shard"], may: [...LOWER, "protocols"] },
  { room: "gate-client", paths: ["src/gate"], may: [...LOWER, "protocols"] },
  // What goes on the queues and how it is sent (queue names, message shapes, the dispatch lane,
  // side deliveries): the shard, the maintenance pass and the services send; only
  // the entry and the dispatcher pool run the consumers.
  { room: "queue", paths: ["src/queue"], may: STORES },
  { room: "service", paths: ["src/service"], may: [...STORES, "queue"] },
  { room: "http", paths: ["src/api/http"], may: [...HTTP_DOOR_STORES, "service"] },
  { room: "v1", paths: ["src/api/v1"], may: [...HTTP_DOOR_STORES, "service", "http"] },
  { room: "qstash-api", paths: ["src/api/qstash"], may: [...HTTP_DOOR_STORES, "service", "http"] },
  { room: "api", paths: ["src/api/app.ts"], may: [...HTTP_DOOR_STORES, "http", "v1", "qstash-api"] },
  // The console reads and acts through the API itself, in-process (src/console/api.ts).
  { room: "console", paths: ["src/console"], may: [...HTTP_DOOR_STORES, "service", "http", "api"] },
  { room: "delivery", paths: ["src/delivery"], may: [...STORES, "service", "queue"] },
  // The shard sends its runs and dead letters, and raises alerts (src/service/raise-alerts.ts).
  { room: "shard", paths: ["durable-objects/shard"], may: [...STORES, "service", "queue"] },
  { room: "flow-gate", paths: ["durable-objects/flow-gate"], may: STORES },
  {
    room: "maintenance",
    paths: ["durable-objects/maintenance"],
    may: [...STORES, "service", "queue"],
  },
  // The dispatcher pool runs the dispatch consumer's own code for the runs its shard hands it.
  {
    room: "dispatcher",
    paths: ["durable-objects/dispatcher"],
    may: [...STORES, "delivery", "queue"],
  },
  { room: "entry", paths: ["src/index.ts"], may: "*" },
];

/** Repository-relative, forward slashes, whatever the platform. */
const toPosix = (path) => path.split(sep).join("/");

function listSourceFiles(root) {
  const files = [];
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext))) files.push(path);
    }
  };
  for (const dir of SCANNED_DIRS) walk(dir);
  return files.sort();
}

/** A cycle as one string, rotated to start at its smallest path, so the order madge finds it in does not matter. */
export function normalizeCycle(paths) {
  const start = paths.indexOf([...paths].sort()[0]);
  return [...paths.slice(start), ...paths.slice(0, start)].join(" > ");
}

async function findCycles(root, files) {
  const tsConfig = join(root, "tsconfig.json");
  const graph = await madge(
    files.map((file) => join(root, file)),
    {
      baseDir: root,
      fileExtensions: SOURCE_EXTENSIONS.map((ext) => ext.slice(1)),
      tsConfig: readdirSync(root).includes("tsconfig.json") ? tsConfig : undefined,
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    },
  );
  // An unresolved relative import would hide its edges from the cycle search: report it too.
  const unresolved = graph.warnings().skipped.filter((specifier) => specifier.startsWith("."));
  return { cycles: graph.circular().map((cycle) => normalizeCycle(cycle.map(toPosix))), unresolved };
}

/** Calls `visit(node)` for every node of the file's syntax tree. */
function walkSyntax(file, text, visit) {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const recurse = (node) => {
    visit(node, lineOf);
    ts.forEachChild(node, recurse);
  };
  recurse(source);
}

function findCallSites(root, files) {
  const d1Prepare = [];
  const shardAccess = [];
  const runWrites = [];
  for (const file of files) {
    const mayWriteRuns =
      !file.startsWith("durable-objects/shard/") || RUN_WRITERS.some((path) => file.startsWith(path));
    walkSyntax(file, readFileSync(join(root, file), "utf8"), (node, lineOf) => {
      const isSqlText =
        ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node);
      if (!mayWriteRuns && isSqlText && RUNS_WRITE.test(node.text))
        runWrites.push({ file, line: lineOf(node) });
      const isPrepareCall =
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === "prepare";
      if (isPrepareCall && !file.startsWith(`${D1_DIR}/`) && file !== D1_METER)
        d1Prepare.push({ file, line: lineOf(node) });
      if (!ts.isIdentifier(node)) return;
      const rule = STUB_RULES.find((candidate) => candidate.identifiers.has(node.text));
      if (rule !== undefined && !rule.clients.includes(file)) {
        shardAccess.push({ file, line: lineOf(node), name: node.text, rule });
      }
    });
  }
  return { d1Prepare, shardAccess, runWrites };
}

function isAllowedCoreImport(file, specifier) {
  if (specifier.startsWith(".")) {
    const target = toPosix(join(dirname(file), specifier));
    return target === CORE_DIR || target.startsWith(`${CORE_DIR}/`);
  }
  return CORE_PACKAGES.some((name) => specifier === name || specifier.startsWith(`${name}/`));
}

const isUnder = (path, dir) => path === dir || path.startsWith(`${dir}/`);
const programOf = (path) =>
  isUnder(path, CLIENT_DIR) ? "client" : isUnder(path, CLI_DIR) ? "cli" : "worker";

/** The repository path a relative specifier names, without its extension. */
function resolveRelative(file, specifier) {
  return toPosix(join(dirname(file), specifier)).replace(/\.(ts|tsx|js|mjs)$/, "");
}

/** Imports that cross between the Worker and the programs for users (rule 5). */
function findProgramCrossings(root, files) {
  const violations = [];
  for (const file of files) {
    const from = programOf(file);
    walkSyntax(file, readFileSync(join(root, file), "utf8"), (node, lineOf) => {
      const isImport = ts.isImportDeclaration(node) || ts.isExportDeclaration(node);
      if (!isImport || node.moduleSpecifier === undefined || !ts.isStringLiteral(node.moduleSpecifier))
        return;
      const specifier = node.moduleSpecifier.text;
      if (!specifier.startsWith(".")) return;
      const target = resolveRelative(file, specifier);
      const to = programOf(target);
      if (from === to) return;
      const typeOnly = ts.isImportDeclaration(node)
        ? node.importClause?.isTypeOnly === true
        : node.isTypeOnly === true;
      const allowed =
        (from === "worker" && `${target}.ts` === CLIENT_SHARED_WITH_WORKER) ||
        (isUnder(file, CONSOLE_DIR) && typeOnly && `${target}.ts` === CLIENT_TYPES) ||
        (from === "client" && typeOnly) ||
        (from === "cli" && (to === "client" || isUnder(target, CORE_DIR) || typeOnly));
      if (!allowed) violations.push({ file, line: lineOf(node), specifier, from, to });
    });
  }
  return violations;
}

/** The room of a repository path (with or without its extension), or null outside every room. */
function roomOf(path) {
  const matches = (prefix) =>
    path === prefix || path.startsWith(`${prefix}/`) || `${path}.ts` === prefix || `${path}.tsx` === prefix;
  return ROOMS.find((candidate) => candidate.paths.some(matches)) ?? null;
}

/** Imports that run against the rooms' order (rule 6). */
function findRoomCrossings(root, files) {
  const violations = [];
  for (const file of files) {
    const from = roomOf(file);
    if (from === null || from.may === "*") continue;
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith(".")) continue;
      const to = roomOf(resolveRelative(file, specifier));
      if (to === null || to === from || from.may.includes(to.room)) continue;
      violations.push({ file, specifier, from: from.room, to: to.room });
    }
  }
  return violations;
}

function findCoreImports(root, files) {
  const violations = [];
  for (const file of files.filter((path) => path.startsWith(`${CORE_DIR}/`))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (!isAllowedCoreImport(file, specifier)) violations.push({ file, specifier });
    }
  }
  return violations;
}

/** The sub-room of a path under `dir` (null for a loose file) and its layer in `layers` (-1 if none). */
function layerOf(path, dir, layers) {
  const parts = path.slice(dir.length + 1).split("/");
  if (parts.length < 2) return { subRoom: null, layer: -1 };
  const subRoom = parts[0];
  return { subRoom, layer: layers.findIndex((layer) => layer.includes(subRoom)) };
}

/**
 * Rules 9 and 10: the sub-rooms of `dir` are `layers` (named `name` in messages, each sub-room as
 * `label/sub`): sub-rooms in no layer, imports that run sideways or up, and loose files of `dir`
 * unless `looseOnTop` (then they sit above every layer and may import anything in `dir`).
 */
function findLayerProblems(root, files, dir, layers, { name, label, looseOnTop = false }) {
  const problems = [];
  const unlayered = new Set();
  for (const file of files.filter((path) => path.startsWith(`${dir}/`))) {
    const from = layerOf(file, dir, layers);
    if (from.subRoom === null) {
      if (!looseOnTop) problems.push(`loose file in ${dir} (put it in a sub-room of ${name}): ${file}`);
      continue;
    }
    if (from.layer === -1) {
      if (!unlayered.has(from.subRoom)) problems.push(`${dir}/${from.subRoom} is in no layer of ${name}`);
      unlayered.add(from.subRoom);
      continue;
    }
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith(".")) continue;
      const target = resolveRelative(file, specifier);
      if (!target.startsWith(`${dir}/`)) continue;
      const to = layerOf(target, dir, layers);
      if (to.subRoom === from.subRoom || (to.layer !== -1 && to.layer < from.layer)) continue;
      problems.push(
        `${label}/${from.subRoom} imports ${label}/${to.subRoom ?? "(loose)"} (not a lower layer): ${file} ("${specifier}")`,
      );
    }
  }
  return problems;
}

/** Occurrences grouped by file, each file with all of its occurrences. */
function byFile(occurrences) {
  // Map.groupBy would do, but it needs Node 21 and we support 20.19.
  const groups = new Map();
  for (const occurrence of occurrences) {
    groups.set(occurrence.file, [...(groups.get(occurrence.file) ?? []), occurrence]);
  }
  return [...groups];
}

/** Every violation, as lines of text. */
export async function checkStructure(root) {
  const files = listSourceFiles(root);
  const { cycles, unresolved } = await findCycles(root, files);
  const { d1Prepare, shardAccess, runWrites } = findCallSites(root, files);
  const problems = [];
  for (const cycle of cycles) problems.push(`import cycle: ${cycle}`);
  for (const specifier of unresolved) problems.push(`unresolved import (hides cycles): ${specifier}`);
  for (const [file, list] of byFile(d1Prepare)) {
    const lines = list.map((site) => `line ${site.line}`).join(", ");
    problems.push(`D1 statement outside ${D1_DIR}/: ${file}: ${lines}`);
  }
  for (const [file, list] of byFile(runWrites)) {
    const lines = list.map((site) => `line ${site.line}`).join(", ");
    problems.push(`a write to the shard's runs table outside ${RUN_WRITERS.join(", ")}: ${file}: ${lines}`);
  }
  for (const rule of STUB_RULES) {
    for (const [file, list] of byFile(shardAccess.filter((site) => site.rule === rule))) {
      const sites = list.map((site) => `${site.name} line ${site.line}`).join(", ");
      problems.push(`${rule.what} access outside ${rule.clients.join(", ")}: ${file}: ${sites}`);
    }
  }
  for (const { file, line, specifier, from, to } of findProgramCrossings(root, files)) {
    problems.push(`${from} imports ${to} code: ${file}: line ${line} ("${specifier}")`);
  }
  for (const { file, specifier } of findCoreImports(root, files)) {
    problems.push(
      `${CORE_DIR} imports "${specifier}" in ${file} (only ${CORE_PACKAGES.join(", ")} and itself)`,
    );
  }
  // Rule 6 sees only files in a room: a Worker file outside every room would escape it.
  for (const file of files) {
    if (roomOf(file) === null && !isUnder(file, CLIENT_DIR) && !isUnder(file, CLI_DIR)) {
      problems.push(`in no room (add it to one, or a room for it to ROOMS): ${file}`);
    }
  }
  for (const { file, specifier, from, to } of findRoomCrossings(root, files)) {
    problems.push(`${from} imports ${to}: ${file} ("${specifier}")`);
  }
  problems.push(
    ...findLayerProblems(root, files, CORE_DIR, CORE_LAYERS, { name: "CORE_LAYERS", label: "core" }),
  );
  problems.push(
    ...findLayerProblems(root, files, SHARD_DIR, SHARD_LAYERS, {
      name: "SHARD_LAYERS",
      label: "shard",
      looseOnTop: true,
    }),
  );
  problems.push(...checkMigrations(root));
  return { files: files.length, problems };
}

async function main() {
  const { values } = parseArgs({ options: { root: { type: "string" } } });
  const root = resolve(values.root ?? join(dirname(fileURLToPath(import.meta.url)), ".."));
  const { files, problems } = await checkStructure(root);
  const stale = findStalePaths(root).map(({ file, line, path }) => `stale path: ${file}:${line}: ${path}`);
  if (process.env.CHECK_STALE_PATHS !== "0") problems.push(...stale);
  else if (stale.length > 0) {
    console.log(
      `${stale.length} path(s) in docs and comments name nothing (reported only: CHECK_STALE_PATHS=0):`,
    );
    for (const line of stale) console.log(`  - ${line}`);
  }
  if (problems.length > 0) {
    console.error(`structure check failed: ${problems.length} violation(s) in ${files} files`);
    for (const problem of problems) console.error(`  - ${problem}`);
    process.exit(1);
  }
  console.log(`structure check passed (${files} files)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
