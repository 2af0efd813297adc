// Which targets a deployment may call besides the public Internet. Production refuses every
// special-purpose address and internal name (ssrf.ts); local mode (`allowPrivate`, what `npm start`
// runs by default) lets every http(s) URL through; an allow-list lets named hosts through the
// production rules and nothing else (`npm start`'s EDGECRON_ALLOWED_TARGETS, set as the Worker's
// PRIVATE_TARGET_ALLOW_LIST), so the production policy can be tried locally against a local target.

/** One allow-list entry: a host as the URL parser writes it, and a port (null: any port). */
export interface AllowedTarget {
  host: string;
  port: number | null;
}

export interface TargetPolicy {
  /** Local development: every http(s) URL without credentials may be called. */
  allowPrivate: boolean;
  /** Hosts the production rules let through (their other checks, scheme and credentials, still apply). */
  allowedTargets?: readonly AllowedTarget[];
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`; nothing else (no scheme, path or user). */
const ENTRY = /^(\[[0-9a-fA-F:.]+\]|[^\s:/?#@[\]]+)(?::(\d{1,5}))?$/;

/**
 * The allow-list in a var: entries separated by commas or spaces; the ones that are not
 * `host[:port]` are returned as `ignored` (and allow nothing).
 * @example parseAllowedTargets("127.0.0.1:9000, [::1], db") // allowed: 127.0.0.1 port 9000, [::1] and db on any port
 */
export function parseAllowedTargets(text: string | undefined): {
  allowed: AllowedTarget[];
  ignored: string[];
} {
  const allowed: AllowedTarget[] = [];
  const ignored: string[] = [];
  for (const entry of (text ?? "").split(/[\s,]+/).filter((part) => part !== "")) {
    const match = ENTRY.exec(entry);
    const port = match?.[2] === undefined ? null : Number(match[2]);
    const host = match ? hostOf(match[1] ?? "") : null;
    if (host === null || (port !== null && (port < 1 || port > 65_535))) ignored.push(entry);
    else allowed.push({ host, port });
  }
  return { allowed, ignored };
}

/** The host as the WHATWG URL parser normalizes it (lower case, IPv4 dotted, IPv6 compressed). */
function hostOf(written: string): string | null {
  try {
    return normalHost(new URL(`http://${written}/`).hostname);
  } catch {
    return null;
  }
}

const normalHost = (hostname: string) => hostname.toLowerCase().replace(/\.$/, "");

/** Whether the allow-list names this URL's host, and its port if the entry has one. */
export function isAllowedTarget(url: URL, allowed: readonly AllowedTarget[] | undefined): boolean {
  if (allowed === undefined || allowed.length === 0) return false;
  const host = normalHost(url.hostname);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return allowed.some((entry) => entry.host === host && (entry.port === null || entry.port === port));
}

/** An entry as people write it: `127.0.0.1:9000`, `[::1]`, `db`. */
export function formatAllowedTarget(entry: AllowedTarget): string {
  return entry.port === null ? entry.host : `${entry.host}:${entry.port}`;
}
