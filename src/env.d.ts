// Bindings that exist only in some environments, so `wrangler types` cannot see them.
declare namespace Cloudflare {
  interface Env {
    /** "1" enables test-only hooks and fault switches; unset in every real deployment. */
    EDGECRON_TEST_HOOKS?: string;
    /**
     * Tests only (read only when EDGECRON_TEST_HOOKS is "1"): a simulated tz database change, JSON
     * `{"version": "...", "patches": [{"zone", "fromMs", "shiftMinutes"}]}` (see src/tzdata.ts).
     */
    EDGECRON_TEST_TZDATA?: string;
    /**
     * "1": count the rows every statement writes and every setAlarm (src/rows-meter.ts), read at
     * `GET /__meter/rows` with the admin token. The bench sets it; unset everywhere else.
     */
    EDGECRON_ROWS_METER?: string;
    /** Present only inside the vitest workers pool (test/apply-migrations.ts). */
    TEST_MIGRATIONS?: import("cloudflare:test").D1Migration[];
    /** The job databases' migrations (migrations-jobs/), likewise only inside the pool. */
    TEST_JOB_MIGRATIONS?: import("cloudflare:test").D1Migration[];
    /**
     * A DNS-over-HTTPS JSON endpoint (e.g. "https://cloudflare-dns.com/dns-query") the consumer
     * resolves target names with before each call, refusing names that resolve to special-purpose
     * addresses. Unset or "off": no resolution (the default; see the README's SSRF paragraph).
     */
    TARGET_DNS_RESOLVER?: string;
    /**
     * Hosts the production target policy lets through, `host` or `host:port`, separated by commas
     * or spaces (src/core/targets/target-policy.ts). `EDGECRON_ALLOWED_TARGETS=127.0.0.1:9000 npm start`
     * sets it; unset: none.
     */
    PRIVATE_TARGET_ALLOW_LIST?: string;
    /**
     * Optional Worker secret: headers for the OTLP collector (OTEL_EXPORTER_OTLP_ENDPOINT), as
     * `name=value` pairs separated by commas, values URL-encoded (the OTel SDKs' format).
     */
    OTEL_EXPORTER_OTLP_HEADERS?: string;
    /** Optional Worker secret for run tokens; unset: a key derived from EDGECRON_ADMIN_TOKEN. */
    EDGECRON_RUN_TOKEN_SECRET?: string;
  }
}
