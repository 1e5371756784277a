// Signing in checks the key against the API (GET /permissions needs a valid key and nothing more) before keeping it.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { sessionEndedBecause, signIn } from '../session';
import { Field } from '../ui/field';
import { Problem } from '../ui/problem';
import { useAction } from '../ui/use-load';

export function SignIn() {
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction();
  const ended = sessionEndedBecause();
  return (
    <main class="sign-in" id="main">
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const entered = key.trim();
          const ok = await run(() => api('GET', '/permissions', { key: entered }).then(() => true));
          if (ok) signIn(entered);
        }}
      >
        <h1>
          <img src="/console/favicon.svg" alt="" width={32} height={32} /> Vault console
        </h1>
        <p class="hint">Sign in with an application’s API key. The console can do what that key may do, and nothing more.</p>
        {ended && !error && (
          <p class="notice info" role="status">
            You were signed out: {ended}
          </p>
        )}
        <Problem error={error} />
        <Field label="API key" name="key" hint="Kept in this tab’s session storage only, and forgotten when you sign out or close the tab.">
          {(control) => (
            <input
              {...control}
              type="password"
              required
              autoComplete="off"
              spellcheck={false}
              value={key}
              onInput={(event) => setKey(event.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="primary" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
