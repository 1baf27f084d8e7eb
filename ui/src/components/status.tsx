/** What a page shows while its data loads or when the API refused it. */
import { ApiError } from '../api.js';

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
