import { DurableObject } from "cloudflare:workers";

/** Runs the maintenance pass from a self-re-arming alarm (Cron Triggers never fire locally). */
export class Maintenance extends DurableObject<Env> {}
