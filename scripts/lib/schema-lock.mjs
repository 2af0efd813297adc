// Migrations are append-only: a database that applied a migration never runs it again, so an edit
// to one that shipped reaches only the databases created afterwards, and the two kinds drift apart
// (this happened once: a D1 migration was rewritten after it landed). The lock records the hash of
// every migration that was committed; the structure check refuses an edit, a removal or a new
// migration that sorts before a locked one, and `npm run migrations:lock` only ever adds entries.
//
// Migrations are the .sql files of the D1 folders and each entry of a Durable Object's MIGRATIONS
// array (its index is its version).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

export const LOCK_FILE = "scripts/schema-lock.json";
const SQL_DIRS = ["migrations", "migrations-jobs"];
const OBJECT_SCHEMAS = ["durable-objects/shard/schema.ts", "durable-objects/flow-gate/schema.ts"];
/** NNNN_words.sql: four digits, then lower-case words joined by underscores. */
const SQL_NAME = /^\d{4}_[a-z0-9]+(_[a-z0-9]+)*\.sql$/;

/** @param {string} text */
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/**
 * The text of each element of the file's `MIGRATIONS` array literal, in order.
 * @param {string} root
 * @param {string} file
 * @returns {string[]}
 */
function objectMigrations(root, file) {
  const text = readFileSync(join(root, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  /** @type {string[]} */
  let elements = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    const isMigrations =
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === "MIGRATIONS" &&
      node.initializer !== undefined &&
      ts.isArrayLiteralExpression(node.initializer);
    if (isMigrations) elements = node.initializer.elements.map((element) => element.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return elements;
}

/**
 * Every migration in the tree: key (path, or path#version) -> hash, and the badly named SQL files.
 * @param {string} root
 */
export function readMigrations(root) {
  const entries = new Map();
  const badNames = [];
  for (const dir of SQL_DIRS) {
    if (!existsSync(join(root, dir))) continue;
    for (const name of readdirSync(join(root, dir)).sort()) {
      if (!name.endsWith(".sql")) continue;
      if (!SQL_NAME.test(name)) badNames.push(`${dir}/${name}`);
      entries.set(`${dir}/${name}`, sha256(readFileSync(join(root, dir, name), "utf8")));
    }
  }
  for (const file of OBJECT_SCHEMAS) {
    if (!existsSync(join(root, file))) continue;
    objectMigrations(root, file).forEach((text, index) => {
      entries.set(`${file}#${index + 1}`, sha256(text));
    });
  }
  return { entries, badNames };
}

/**
 * @param {string} root
 * @returns {Map<string, string>}
 */
export function readLock(root) {
  const path = join(root, LOCK_FILE);
  return existsSync(path) ? new Map(Object.entries(JSON.parse(readFileSync(path, "utf8")))) : new Map();
}

/**
 * The folder-or-file a key belongs to, and its order within it (the number, or the version).
 * @param {string} key
 */
function sequenceOf(key) {
  const hash = key.lastIndexOf("#");
  if (hash >= 0) return { group: key.slice(0, hash), order: Number(key.slice(hash + 1)) };
  const slash = key.lastIndexOf("/");
  return { group: key.slice(0, slash), order: Number.parseInt(key.slice(slash + 1, slash + 5), 10) };
}

/**
 * Problems, as lines of text: edits and removals of locked migrations, unlocked or misplaced new ones.
 * @param {string} root
 * @returns {string[]}
 */
export function checkMigrations(root) {
  const { entries, badNames } = readMigrations(root);
  const lock = readLock(root);
  const problems = badNames.map((key) => `migration name is not NNNN_words.sql: ${key}`);
  const lastLocked = new Map();
  for (const [key, hash] of lock) {
    const { group, order } = sequenceOf(key);
    lastLocked.set(group, Math.max(lastLocked.get(group) ?? 0, order));
    if (!entries.has(key)) problems.push(`locked migration removed: ${key} (add a new migration instead)`);
    else if (entries.get(key) !== hash)
      problems.push(`locked migration edited: ${key} (add a new migration instead)`);
  }
  const seen = new Map();
  for (const key of entries.keys()) {
    const { group, order } = sequenceOf(key);
    if (seen.get(group)?.has(order)) problems.push(`two migrations numbered ${order} in ${group}: ${key}`);
    seen.set(group, (seen.get(group) ?? new Set()).add(order));
    if (lock.has(key)) continue;
    if (order <= (lastLocked.get(group) ?? 0)) {
      problems.push(
        `new migration ${key} sorts before a locked one: number it after ${lastLocked.get(group)}`,
      );
    } else {
      problems.push(`migration not in ${LOCK_FILE}: ${key} (run npm run migrations:lock once it is final)`);
    }
  }
  return problems;
}

/**
 * Adds every migration that is not locked yet; never changes or removes an entry.
 * @param {string} root
 */
export function lockNewMigrations(root) {
  const { entries } = readMigrations(root);
  const lock = readLock(root);
  const added = [...entries].filter(([key]) => !lock.has(key));
  const problems = checkMigrations(root).filter((problem) => !problem.startsWith("migration not in"));
  if (problems.length > 0) return { added: [], problems };
  for (const [key, hash] of added) lock.set(key, hash);
  const sorted = Object.fromEntries(
    [...lock].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true })),
  );
  writeFileSync(join(root, LOCK_FILE), `${JSON.stringify(sorted, null, 2)}\n`);
  return { added: added.map(([key]) => key), problems: [] };
}
