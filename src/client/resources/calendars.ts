import type { CallOptions, Transport } from "../transport";
import type { Calendar, CalendarCreate, CalendarDetail, CalendarReplace } from "../types";

const calendarPath = (name: string) => `/v1/calendars/${encodeURIComponent(name)}`;

/** `client.calendars`: the tenant's named calendars (holidays, business days) jobs exclude by. */
export class CalendarsResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  create(calendar: CalendarCreate, options: CallOptions = {}): Promise<Calendar> {
    return this.#transport.call({
      method: "POST",
      path: "/v1/calendars",
      body: calendar,
      idempotent: false,
      ...options,
    });
  }

  list(options: CallOptions = {}): Promise<{ data: Calendar[] }> {
    return this.#transport.call({ method: "GET", path: "/v1/calendars", idempotent: true, ...options });
  }

  get(name: string, options: CallOptions = {}): Promise<CalendarDetail> {
    return this.#transport.call({ method: "GET", path: calendarPath(name), idempotent: true, ...options });
  }

  /** Creates or replaces the calendar; the jobs that name it are re-derived on their shards. */
  put(name: string, calendar: CalendarReplace, options: CallOptions = {}): Promise<Calendar> {
    return this.#transport.call({
      method: "PUT",
      path: calendarPath(name),
      body: calendar,
      idempotent: true,
      ...options,
    });
  }

  /** Answers the deleted calendar; 409 `calendar_in_use` (naming the jobs) while a job names it. */
  delete(name: string, options: CallOptions = {}): Promise<Calendar> {
    return this.#transport.call({ method: "DELETE", path: calendarPath(name), idempotent: true, ...options });
  }
}
