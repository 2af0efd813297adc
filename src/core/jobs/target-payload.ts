// How a target reads outside a call: one line for people (console, CLI), and the payload of a
// dead letter, which keeps the shape HTTP targets have always had.

import { serviceTargetUrl } from "../targets/targets";
import type { JobTarget } from "./job-spec";

/**
 * One line naming a target for people: the console, the CLI.
 *
 * @example describeTarget({ type: "service", binding: "BILLING", method: "POST", path: "/hook", headers: {} })
 * // "service BILLING: POST /hook"
 */
export function describeTarget(target: JobTarget): string {
  switch (target.type) {
    case "http":
      return `${target.method} ${target.url}`;
    case "service":
      return `service ${target.binding}: ${target.method} ${target.path}`;
    default:
      return `${target.type} ${target.binding}`;
  }
}

export interface DeadLetterPayload {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export const EMPTY_PAYLOAD: DeadLetterPayload = { method: "POST", url: "", headers: {}, body: null };

/**
 * What a dead letter records of the call. A service binding records the URL its Worker saw; a
 * Workflow or a Queue records `workflow://NAME` or `queue://NAME` with the method `CREATE` or
 * `SEND`, so a reader sees at a glance that no HTTP request was made.
 */
export function deadLetterPayload(target: JobTarget): DeadLetterPayload {
  const body = target.body ?? null;
  switch (target.type) {
    case "http":
      return { method: target.method, url: target.url, headers: target.headers, body };
    case "service":
      return { method: target.method, url: serviceTargetUrl(target), headers: target.headers, body };
    case "workflow":
      return { method: "CREATE", url: `workflow://${target.binding}`, headers: {}, body };
    case "queue":
      return { method: "SEND", url: `queue://${target.binding}`, headers: {}, body };
  }
}
