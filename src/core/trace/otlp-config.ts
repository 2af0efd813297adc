// The operator's OpenTelemetry settings, as the OTel SDKs read them: OTEL_EXPORTER_OTLP_ENDPOINT
// is the collector's base address (traces go to `<base>/v1/traces`, logs to `<base>/v1/logs`),
// OTEL_EXPORTER_OTLP_HEADERS is `name=value` pairs separated by commas (values URL-encoded),
// OTEL_SERVICE_NAME names the resource (default "edgecron").

export interface OtlpConfig {
  tracesUrl: string;
  logsUrl: string;
  headers: Record<string, string>;
  serviceName: string;
}

export const DEFAULT_SERVICE_NAME = "edgecron";

/**
 * Null when no endpoint is set (or it is not an http(s) address): nothing is exported.
 * @example otlpConfigOf({ endpoint: "http://collector:4318/" })?.tracesUrl === "http://collector:4318/v1/traces"
 */
export function otlpConfigOf(settings: {
  endpoint?: string | undefined;
  headers?: string | undefined;
  serviceName?: string | undefined;
}): OtlpConfig | null {
  const endpoint = settings.endpoint?.trim() ?? "";
  if (!/^https?:\/\/[^/]/i.test(endpoint)) return null;
  const base = endpoint.replace(/\/+$/, "");
  return {
    tracesUrl: `${base}/v1/traces`,
    logsUrl: `${base}/v1/logs`,
    headers: parseOtlpHeaders(settings.headers ?? ""),
    serviceName: settings.serviceName?.trim() || DEFAULT_SERVICE_NAME,
  };
}

/** `"a=1, b=x%20y"` -> `{a: "1", b: "x y"}`; a pair without `=` or a name is skipped. */
export function parseOtlpHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    if (name === "") continue;
    headers[name] = decodeOrKeep(pair.slice(at + 1).trim());
  }
  return headers;
}

function decodeOrKeep(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
