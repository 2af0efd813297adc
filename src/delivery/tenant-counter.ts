// Things in progress per tenant in this isolate (slow calls, calls started): each one added returns
// the function that ends it, which counts once however often it is called (a call's end is reached
// by more than one path).

export class TenantCounter {
  readonly #counts = new Map<string, number>();

  of(tenantId: string): number {
    return this.#counts.get(tenantId) ?? 0;
  }

  has(tenantId: string): boolean {
    return this.#counts.has(tenantId);
  }

  /** Whether any tenant has one in progress. */
  any(): boolean {
    return this.#counts.size > 0;
  }

  /** One more of `tenantId`'s; the returned function ends it. */
  add(tenantId: string): () => void {
    this.#counts.set(tenantId, this.of(tenantId) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = this.of(tenantId) - 1;
      if (left > 0) this.#counts.set(tenantId, left);
      else this.#counts.delete(tenantId);
    };
  }
}
