/** Who is calling: the admin token, or one tenant's API key. */
export interface Caller {
  role: "admin" | "tenant";
  tenantId: string | null;
  keyId: string | null;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    caller: Caller;
    /** The tenant a tenant-scoped route acts for (the key's tenant, or Edgecron-Tenant for admin). */
    tenantId: string;
  };
}
