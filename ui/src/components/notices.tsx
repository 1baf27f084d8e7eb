/**
 * What a page says instead of (or above) its data: that it loads, that the API refused it, and the prompt
 * for the gateway's bearer token after an API call got 401. The token is kept in sessionStorage (gone when
 * the tab closes) and sent as `Authorization: Bearer …` on every call.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, setToken } from '../api.js';

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function ErrorBox({ error }: { error: Error }) {
  const code = error instanceof ApiError ? error.code : null;
  const problems = error instanceof ApiError ? error.problems : [];
  return (
    <div class="error" role="alert">
      <p>
        {error.message}
        {code !== null && (
          <>
            {' '}
            <code>{code}</code>
          </>
        )}
      </p>
      {problems.length > 0 && (
        <ul>
          {problems.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function TokenForm() {
  const [value, setValue] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <section class="token" aria-labelledby="token-title">
      <h2 id="token-title">Token needed</h2>
      <p>The gateway asks for a bearer token (its <code>auth.bearerTokens</code>). It is kept in this tab only.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (value !== '') setToken(value);
        }}
      >
        <label for="token-input">Bearer token</label>
        <input id="token-input" ref={input} type="password" autocomplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} required />
        <button type="submit">Use token</button>
      </form>
    </section>
  );
}
