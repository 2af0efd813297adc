import type { CallOptions, Transport } from "../transport";
import type {
  ApiKey,
  ApiKeyCreate,
  ApiKeyRevoked,
  ApiKeySummary,
  Tenant,
  TenantCreate,
  TenantLimits,
  TenantLimitsPut,
  TenantUpdate,
} from "../types";

const tenantPath = (id: string) => `/v1/tenants/${encodeURIComponent(id)}`;

/** `client.tenants` (admin token; `get` also with that tenant's key). */
export class TenantsResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  create(tenant: TenantCreate, options: CallOptions = {}): Promise<Tenant> {
    return this.#transport.call({
      method: "POST",
      path: "/v1/tenants",
      body: tenant,
      idempotent: false,
      ...options,
    });
  }

  list(options: CallOptions = {}): Promise<{ data: Tenant[] }> {
    return this.#transport.call({ method: "GET", path: "/v1/tenants", idempotent: true, ...options });
  }

  get(id: string, options: CallOptions = {}): Promise<Tenant> {
    return this.#transport.call({ method: "GET", path: tenantPath(id), idempotent: true, ...options });
  }

  update(id: string, patch: TenantUpdate, options: CallOptions = {}): Promise<Tenant> {
    return this.#transport.call({
      method: "PATCH",
      path: tenantPath(id),
      body: patch,
      idempotent: false,
      ...options,
    });
  }

  /** Adds `signing_secret_next`; both secrets sign deliveries until `promoteSigningSecret`. */
  rotateSigningSecret(id: string, options: CallOptions = {}): Promise<Tenant> {
    return this.#transport.call({
      method: "POST",
      path: `${tenantPath(id)}/signing-secret/rotate`,
      idempotent: false,
      ...options,
    });
  }

  promoteSigningSecret(id: string, options: CallOptions = {}): Promise<Tenant> {
    return this.#transport.call({
      method: "POST",
      path: `${tenantPath(id)}/signing-secret/promote`,
      idempotent: false,
      ...options,
    });
  }

  /** The tenant's limits and fair-share weight (admin, or that tenant's key). */
  limits(id: string, options: CallOptions = {}): Promise<TenantLimits> {
    return this.#transport.call({
      method: "GET",
      path: `${tenantPath(id)}/limits`,
      idempotent: true,
      ...options,
    });
  }

  /** Replaces the tenant's limits and weight (admin): an absent field takes the default. */
  setLimits(id: string, limits: TenantLimitsPut, options: CallOptions = {}): Promise<TenantLimits> {
    return this.#transport.call({
      method: "PUT",
      path: `${tenantPath(id)}/limits`,
      body: limits,
      idempotent: true,
      ...options,
    });
  }

  /** No call of the tenant starts, and what would start work answers 409 `tenant_suspended`, until `unsuspend`. */
  suspend(id: string, options: CallOptions = {}): Promise<Tenant> {
    return this.#transport.call({
      method: "POST",
      path: `${tenantPath(id)}/suspend`,
      idempotent: true,
      ...options,
    });
  }

  /** The tenant's jobs run again; instants missed meanwhile follow each job's misfire policy. */
  unsuspend(id: string, options: CallOptions = {}): Promise<Tenant> {
    return this.#transport.call({
      method: "POST",
      path: `${tenantPath(id)}/unsuspend`,
      idempotent: true,
      ...options,
    });
  }
}

/** `client.apiKeys` (admin token). */
export class ApiKeysResource {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** The returned `key` is shown once: store it now. */
  create(body: ApiKeyCreate, options: CallOptions = {}): Promise<ApiKey> {
    return this.#transport.call({
      method: "POST",
      path: "/v1/api-keys",
      body,
      idempotent: false,
      ...options,
    });
  }

  /** A tenant's keys, revoked ones included (prefix only, never the key). */
  list(tenantId: string, options: CallOptions = {}): Promise<{ data: ApiKeySummary[] }> {
    return this.#transport.call({
      method: "GET",
      path: "/v1/api-keys",
      query: { tenant_id: tenantId },
      idempotent: true,
      ...options,
    });
  }

  revoke(id: string, options: CallOptions = {}): Promise<ApiKeyRevoked> {
    return this.#transport.call({
      method: "DELETE",
      path: `/v1/api-keys/${encodeURIComponent(id)}`,
      idempotent: false,
      ...options,
    });
  }
}
