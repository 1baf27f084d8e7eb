/** A two-column table of counts by a key (sessions by revision, by client, by profile). */
import { count } from '../format.js';

export function CountTable({ id, caption, keyName, counts }: { id: string; caption: string; keyName: string; counts: Readonly<Record<string, number>> }) {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return (
    <table id={id} class="counts">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{keyName}</th>
          <th scope="col" class="num">
            Sessions
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={2} class="muted">
              none
            </td>
          </tr>
        ) : (
          rows.map(([k, n]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td class="num">{count(n)}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}
