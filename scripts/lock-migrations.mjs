#!/usr/bin/env node
// npm run migrations:lock: records the hash of every migration not yet in scripts/schema-lock.json,
// once it is final (before it is committed to main). It never changes or removes an entry: an
// edit to a locked migration stays a structure-check failure (scripts/lib/schema-lock.mjs).
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LOCK_FILE, lockNewMigrations } from "./lib/schema-lock.mjs";

const root = resolve(join(dirname(fileURLToPath(import.meta.url)), ".."));
const { added, problems } = lockNewMigrations(root);
if (problems.length > 0) {
  console.error(`not locked: fix these first\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
  process.exit(1);
}
console.log(added.length === 0 ? `${LOCK_FILE}: nothing new` : `${LOCK_FILE}: added ${added.join(", ")}`);
