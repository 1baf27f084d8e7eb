/** Small formatting helpers shared by the pages. */

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const numberFormat = new Intl.NumberFormat();

/** A time as the reader's locale writes it. */
export function time(ms: number): string {
  return timeFormat.format(new Date(ms));
}

/** "12 s ago", "3 min ago", "2 h ago". */
export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

export function count(n: number): string {
  return numberFormat.format(n);
}

/** Milliseconds with enough digits for sub-millisecond costs. */
export function ms(n: number): string {
  return n < 1 ? `${n.toFixed(2)} ms` : n < 10 ? `${n.toFixed(1)} ms` : `${Math.round(n)} ms`;
}

/** Sets document.title for the page. */
export function title(page: string): void {
  document.title = `${page} · mcp-retrofit console`;
}
