/** A <time> element: relative text, the absolute time as its title and datetime. */
import { ago, time } from '../format.js';

export function When({ at }: { at: number }) {
  return (
    <time dateTime={new Date(at).toISOString()} title={time(at)}>
      {ago(at)}
    </time>
  );
}
