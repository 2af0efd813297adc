// What `npm start` gives the Worker beside wrangler.toml (scripts/lib/local-settings.mjs): every
// line of .dev.vars but the secrets wrangler loads itself, the OpenTelemetry settings of its
// environment over them, and the target policy its switches choose.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localSettings, requiredSecrets, targetPolicyLine } from "../../scripts/lib/local-settings.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const required = ["EDGECRON_ADMIN_TOKEN"];

describe("requiredSecrets", () => {
  it("reads wrangler.toml's [secrets] required list", () => {
    expect(requiredSecrets(readFileSync(join(ROOT, "wrangler.toml"), "utf8"))).toEqual([
      "EDGECRON_ADMIN_TOKEN",
    ]);
    expect(requiredSecrets('[vars]\nA = "1"\n[secrets]\nrequired = ["X", "Y"]\n\n[[queues]]\n')).toEqual([
      "X",
      "Y",
    ]);
    expect(requiredSecrets('[vars]\nrequired = ["NOT_A_SECRET"]\n')).toEqual([]);
  });
});

describe("localSettings", () => {
  it("passes every line of .dev.vars but the required secrets, and runs local mode by default", () => {
    const settings = localSettings({
      devVars: {
        EDGECRON_ADMIN_TOKEN: "dev-admin-token",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
        OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=abc",
        EMULATE_CONNECTION_CAP: "true",
      },
      env: {},
      required,
    });
    expect(settings.vars).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=abc",
      EMULATE_CONNECTION_CAP: "true",
      ALLOW_PRIVATE_TARGETS: "true",
    });
    expect(settings.policy).toBe("local");
    expect(settings.notes).toEqual([]);
    expect(targetPolicyLine(settings)).toMatch(
      /^target policy: local mode: every http\(s\) target is called/,
    );
  });

  it("takes the OpenTelemetry settings from the environment over .dev.vars, and nothing else of it", () => {
    const settings = localSettings({
      devVars: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SERVICE_NAME: "from-file" },
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", PATH: "/usr/bin", SHARD_COUNT: "3" },
      required,
    });
    expect(settings.vars).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_SERVICE_NAME: "from-file",
      ALLOW_PRIVATE_TARGETS: "true",
    });
  });

  it("runs the production policy with its allow-list, from the environment or .dev.vars (the environment wins)", () => {
    const fromEnv = localSettings({
      devVars: { EDGECRON_TARGET_POLICY: "local" },
      env: { EDGECRON_TARGET_POLICY: "Production", EDGECRON_ALLOWED_TARGETS: " 127.0.0.1:9000,db " },
      required,
    });
    expect(fromEnv.vars).toEqual({
      ALLOW_PRIVATE_TARGETS: "false",
      PRIVATE_TARGET_ALLOW_LIST: "127.0.0.1:9000,db",
    });
    expect(targetPolicyLine(fromEnv)).toBe(
      "target policy: production: private, loopback, link-local and metadata addresses and internal names refused, except 127.0.0.1:9000,db (EDGECRON_ALLOWED_TARGETS)",
    );
    const fromFile = localSettings({
      devVars: { EDGECRON_TARGET_POLICY: "production", ALLOW_PRIVATE_TARGETS: "true" },
      env: {},
      required,
    });
    expect(fromFile.vars).toEqual({ ALLOW_PRIVATE_TARGETS: "false" });
    expect(fromFile.notes).toEqual([
      ".dev.vars's ALLOW_PRIVATE_TARGETS is ignored: EDGECRON_TARGET_POLICY and EDGECRON_ALLOWED_TARGETS choose the target policy",
    ]);
  });

  it("says an allow-list does nothing in local mode, and refuses a policy it does not know", () => {
    const local = localSettings({
      devVars: {},
      env: { EDGECRON_ALLOWED_TARGETS: "127.0.0.1:9000" },
      required,
    });
    expect(local.vars).toEqual({ ALLOW_PRIVATE_TARGETS: "true" });
    expect(local.notes).toEqual([
      "EDGECRON_ALLOWED_TARGETS has no effect in local mode, which calls every target: add EDGECRON_TARGET_POLICY=production",
    ]);
    expect(() => localSettings({ devVars: {}, env: { EDGECRON_TARGET_POLICY: "strict" }, required })).toThrow(
      'EDGECRON_TARGET_POLICY is "strict": use local (the default) or production',
    );
  });
});
