// A tiny cookie-keeping client for the console, driving the Worker's fetch in-process (workers pool).
import { createExecutionContext, env } from "cloudflare:test";
import worker from "../../src/index";

export const ORIGIN = "https://edgecron.test";

export interface Response2 {
  status: number;
  headers: Headers;
  text: string;
  cookies: string[];
}

export class ConsoleClient {
  readonly jar = new Map<string, string>();
  /** `workerEnv`: the bindings the Worker runs with (another target policy, say); default the pool's. */
  constructor(
    readonly origin = ORIGIN,
    readonly workerEnv: Env = env,
  ) {}

  async send(path: string, init: RequestInit = {}): Promise<Response2> {
    const headers = new Headers(init.headers);
    const cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join("; ");
    if (cookie) headers.set("cookie", cookie);
    const res = await worker.fetch(
      new Request<unknown, IncomingRequestCfProperties>(`${this.origin}${path}`, {
        method: init.method,
        body: init.body,
        headers,
        redirect: "manual",
      }),
      this.workerEnv,
      createExecutionContext(),
    );
    const cookies = res.headers.getSetCookie();
    for (const line of cookies) {
      const [pair = ""] = line.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      if (/max-age=0/i.test(line) || value === "") this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), cookies };
  }

  get(path: string) {
    return this.send(path);
  }

  /** A same-origin form post, as a browser would send it. */
  post(path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) {
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
    }
    return this.send(path, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: this.origin,
        "sec-fetch-site": "same-origin",
        ...headers,
      },
    });
  }

  /** The CSRF token of the first form on the page. */
  static csrfOf(html: string): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(html);
    if (!match?.[1]) throw new Error("no CSRF token on the page");
    return match[1];
  }

  async signIn(key: string): Promise<Response2> {
    const page = await this.get("/console/login");
    return this.post("/console/login", {
      _csrf: ConsoleClient.csrfOf(page.text),
      api_key: key,
      next: "/console",
    });
  }

  async csrf(): Promise<string> {
    return ConsoleClient.csrfOf((await this.get("/console/alerts")).text);
  }
}

/** Form controls without a label: every visible input/select/textarea needs <label for> or aria-label. */
export function unlabelledControls(html: string): string[] {
  const labelled = new Set([...html.matchAll(/<label[^>]*\bfor="([^"]+)"/g)].map((match) => match[1]));
  const missing: string[] = [];
  for (const match of html.matchAll(/<(input|select|textarea)\b([^>]*)>/g)) {
    const attributes = match[2] ?? "";
    if (/type="hidden"/.test(attributes)) continue;
    const id = /\bid="([^"]+)"/.exec(attributes)?.[1];
    const wrapped = /type="(radio|checkbox)"/.test(attributes) && !id;
    if (/aria-label="/.test(attributes) || (id && labelled.has(id)) || wrapped) continue;
    missing.push(match[0]);
  }
  return missing;
}
