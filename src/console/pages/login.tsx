import { BASE } from "../env";
import { Layout } from "../layout";

export function LoginPage({ csrf, next, error }: { csrf: string; next: string; error?: string }) {
  return (
    <Layout title="Sign in">
      <form method="post" action={`${BASE}/login`} class="card narrow" novalidate>
        <input type="hidden" name="_csrf" value={csrf} />
        <input type="hidden" name="next" value={next} />
        {error ? (
          <div class="callout error" role="alert" id="login-error">
            {error}
          </div>
        ) : null}
        <div class="field">
          <label for="api_key">API key or admin token</label>
          <input
            id="api_key"
            name="api_key"
            type="password"
            autocomplete="current-password"
            required
            autofocus
            aria-describedby={error ? "api_key-hint login-error" : "api_key-hint"}
          />
          <p class="hint" id="api_key-hint">
            A tenant key (<code>ek_…</code>) shows that tenant; the admin token can switch between tenants.
            The cookie (HttpOnly) holds only a random session id, not the key; the server remembers which key
            signed in, and the session ends when you sign out, when that key is revoked, or after 12 hours.
          </p>
        </div>
        <div class="actions">
          <button type="submit">Sign in</button>
        </div>
      </form>
    </Layout>
  );
}
