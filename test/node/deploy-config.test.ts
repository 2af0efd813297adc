import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  findD1DatabaseId,
  findKvNamespaceId,
  parseD1DatabaseId,
  parseKvNamespaceId,
  rewriteWranglerToml,
} from "../../scripts/lib/wrangler-config.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const REPO_TOML = readFileSync(join(ROOT, "wrangler.toml"), "utf8");
const D1_ID = "3f0a7c52-9d1e-4b8a-a0c4-5e6f7a8b9c0d";
const KV_ID = "0123456789abcdef0123456789abcdef";

// What wrangler 4.86 prints (src/d1/create.ts, src/kv/index.ts via formatConfigSnippet).
const D1_CREATE_TOML = `✅ Successfully created DB 'edgecron' in region WEUR
Created your new D1 database.

To access your new D1 Database in your Worker, add the following snippet to your configuration file:
[[d1_databases]]
binding = "edgecron"
database_name = "edgecron"
database_id = "${D1_ID}"
`;
const D1_CREATE_JSON = `To access your new D1 Database in your Worker, add the following snippet to your configuration file:
{
  "d1_databases": [
    { "binding": "edgecron", "database_name": "edgecron", "database_id": "${D1_ID}" }
  ]
}`;
const KV_CREATE_TOML = `🌀 Creating namespace with title "DEDUP_KV"
✨ Success!
To access your new KV Namespace in your Worker, add the following snippet to your configuration file:
[[kv_namespaces]]
binding = "DEDUP_KV"
id = "${KV_ID}"
`;

describe("parsing wrangler output", () => {
  it("finds the D1 database id in TOML and JSON snippets", () => {
    expect(parseD1DatabaseId(D1_CREATE_TOML)).toBe(D1_ID);
    expect(parseD1DatabaseId(D1_CREATE_JSON)).toBe(D1_ID);
    expect(parseD1DatabaseId("✘ [ERROR] A database with that name already exists")).toBeNull();
  });

  it("finds the KV namespace id, not a database_id", () => {
    expect(parseKvNamespaceId(KV_CREATE_TOML)).toBe(KV_ID);
    expect(parseKvNamespaceId(`{"kv_namespaces":[{"binding":"DEDUP_KV","id":"${KV_ID}"}]}`)).toBe(KV_ID);
    expect(parseKvNamespaceId(`database_id = "${KV_ID}"`)).toBeNull();
  });

  it("looks existing resources up in the list commands' JSON", () => {
    const d1List = `[{"uuid":"${D1_ID}","name":"edgecron","version":"production"},{"uuid":"x","name":"other"}]`;
    expect(findD1DatabaseId(d1List, "edgecron")).toBe(D1_ID);
    expect(findD1DatabaseId(d1List, "missing")).toBeNull();
    const kvList = ` ⛅️ wrangler 4.86.0\n[{"id":"${KV_ID}","title":"DEDUP_KV"},{"id":"y","title":"other"}]`;
    expect(findKvNamespaceId(kvList, "DEDUP_KV")).toBe(KV_ID);
    expect(findKvNamespaceId("not json", "DEDUP_KV")).toBeNull();
  });
});

describe("rewriteWranglerToml", () => {
  it("changes exactly the database_id and the DEDUP_KV id of the repository's wrangler.toml", () => {
    const rewritten = rewriteWranglerToml(REPO_TOML, { d1DatabaseId: D1_ID, kvNamespaceId: KV_ID });
    const before = REPO_TOML.split("\n");
    const after = rewritten.split("\n");
    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line, i) => (line === before[i] ? [] : [[before[i], line]]));
    expect(changed).toEqual([
      ['database_id = "00000000-0000-0000-0000-000000000001"', `database_id = "${D1_ID}"`],
      ['id = "00000000000000000000000000000002"', `id = "${KV_ID}"`],
    ]);
  });

  it("is idempotent", () => {
    const once = rewriteWranglerToml(REPO_TOML, { d1DatabaseId: D1_ID, kvNamespaceId: KV_ID });
    expect(rewriteWranglerToml(once, { d1DatabaseId: D1_ID, kvNamespaceId: KV_ID })).toBe(once);
  });

  it("picks the block by binding, keeps indentation and trailing comments", () => {
    const toml = [
      "[[kv_namespaces]]",
      'binding = "OTHER"',
      'id = "ffffffffffffffffffffffffffffffff"',
      "",
      "[[kv_namespaces]]",
      '  id = "00000000000000000000000000000002"  # placeholder',
      '  binding = "DEDUP_KV"',
      "",
      "[vars]",
      'id = "not-this-one"',
    ].join("\n");
    expect(rewriteWranglerToml(toml, { kvNamespaceId: KV_ID }).split("\n")).toEqual([
      "[[kv_namespaces]]",
      'binding = "OTHER"',
      'id = "ffffffffffffffffffffffffffffffff"',
      "",
      "[[kv_namespaces]]",
      `  id = "${KV_ID}"  # placeholder`,
      '  binding = "DEDUP_KV"',
      "",
      "[vars]",
      'id = "not-this-one"',
    ]);
  });

  it("adds the key when the block has none", () => {
    const toml = '[[d1_databases]]\nbinding = "DB"\ndatabase_name = "edgecron"\n';
    expect(rewriteWranglerToml(toml, { d1DatabaseId: D1_ID })).toBe(
      `[[d1_databases]]\nbinding = "DB"\ndatabase_id = "${D1_ID}"\ndatabase_name = "edgecron"\n`,
    );
  });

  it("refuses a missing binding or a malformed id", () => {
    expect(() => rewriteWranglerToml("[vars]\n", { d1DatabaseId: D1_ID })).toThrow(
      /no \[\[d1_databases\]\] with binding = "DB"/,
    );
    expect(() => rewriteWranglerToml(REPO_TOML, { d1DatabaseId: "nope" })).toThrow(/not a D1 database id/);
    expect(() => rewriteWranglerToml(REPO_TOML, { kvNamespaceId: D1_ID })).toThrow(/not a KV namespace id/);
  });
});

describe("npm run deploy:setup (with a fake wrangler)", () => {
  /** A stand-in for wrangler that records its arguments and prints what the real one prints. */
  function fakeWrangler(dir: string, existing: boolean): string {
    const path = join(dir, "fake-wrangler.mjs");
    const outputs = {
      "d1 create": existing ? [1, "✘ [ERROR] A database with that name already exists"] : [0, D1_CREATE_TOML],
      "d1 list": [
        0,
        JSON.stringify(
          ["edgecron", "edgecron-jobs-0", "edgecron-jobs-1"].map((name) => ({ uuid: D1_ID, name })),
        ),
      ],
      "queues create": existing
        ? [1, "✘ [ERROR] Queue name 'x' is already taken [code: 11009]"]
        : [0, "✅ Created queue"],
      "kv namespace create": existing
        ? [1, 'A KV namespace with the title "DEDUP_KV" already exists.']
        : [0, KV_CREATE_TOML],
      "kv namespace list": [0, JSON.stringify([{ id: KV_ID, title: "DEDUP_KV" }])],
    };
    writeFileSync(
      path,
      `#!/usr/bin/env node
import { appendFileSync } from "node:fs";
const outputs = ${JSON.stringify(outputs)};
const args = process.argv.slice(2);
appendFileSync(${JSON.stringify(join(dir, "calls.log"))}, args.join(" ") + "\\n");
const key = Object.keys(outputs).find((k) => args.join(" ").startsWith(k));
const [status, text] = outputs[key] ?? [2, "unexpected call"];
(status === 0 ? process.stdout : process.stderr).write(text);
process.exit(status);
`,
    );
    chmodSync(path, 0o755);
    return path;
  }

  function runSetup(existing: boolean) {
    const dir = mkdtempSync(join(tmpdir(), "edgecron-deploy-"));
    const config = join(dir, "wrangler.toml");
    writeFileSync(config, REPO_TOML);
    const result = spawnSync(
      process.execPath,
      [join(ROOT, "scripts", "deploy-setup.mjs"), "--config", config],
      {
        env: { ...process.env, EDGECRON_WRANGLER: fakeWrangler(dir, existing) },
        encoding: "utf8",
      },
    );
    const calls = readFileSync(join(dir, "calls.log"), "utf8").trim().split("\n");
    return { result, calls, toml: readFileSync(config, "utf8") };
  }

  it("creates every database, every queue and the namespace, then writes their ids", () => {
    const { result, calls, toml } = runSetup(false);
    expect(result.status, result.stderr).toBe(0);
    expect(calls.map((call) => call.replace(/ --config .*$/, ""))).toEqual([
      "d1 create edgecron",
      "d1 create edgecron-jobs-0",
      "d1 create edgecron-jobs-1",
      "queues create edgecron-dispatch",
      "queues create edgecron-dispatch-1",
      "queues create edgecron-dead-letters",
      "queues create edgecron-side-deliveries",
      "kv namespace create DEDUP_KV",
    ]);
    expect(toml).toBe(
      rewriteWranglerToml(REPO_TOML, {
        d1DatabaseIds: { DB: D1_ID, DB_JOBS_0: D1_ID, DB_JOBS_1: D1_ID },
        kvNamespaceId: KV_ID,
      }),
    );
    expect(toml).not.toContain("00000000-0000-0000-0000-0000000000");
  });

  it("looks up resources that already exist instead of failing", () => {
    const { result, calls, toml } = runSetup(true);
    expect(result.status, result.stderr).toBe(0);
    expect(calls.map((call) => call.replace(/ --config .*$/, ""))).toContain("d1 list --json");
    expect(calls.map((call) => call.replace(/ --config .*$/, ""))).toContain("kv namespace list");
    expect(toml).toContain(`database_id = "${D1_ID}"`);
    expect(toml).toContain(`id = "${KV_ID}"`);
  });
});
