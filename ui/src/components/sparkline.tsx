/**
 * One tool's outcomes over the last hour as a small uPlot chart, made only while its row is near the viewport
 * (one shared IntersectionObserver; the chart is destroyed when the row scrolls far away), so a table of a
 * thousand tools costs a thousand empty cells, not a thousand canvases. The canvas is hidden from assistive
 * technology; the text beside it says the same numbers.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { SERIES, type SeriesName, type ToolRow } from '../types.js';

/** One colour per series, each at least 3:1 against the white background (WCAG 1.4.11). */
export const COLOURS: Readonly<Record<SeriesName, string>> = {
  extracted: '#1f5fbf',
  validated: '#17773a',
  invalid: '#c0262d',
  unparseable: '#7a3db8',
  shadow: '#6b6b6b',
};

const WIDTH = 160;
const HEIGHT = 32;

type Show = (visible: boolean) => void;
const watched = new Map<Element, Show>();
let observer: IntersectionObserver | null = null;

function observe(el: Element, show: Show): () => void {
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) watched.get(e.target)?.(e.isIntersecting);
    },
    { rootMargin: '300px 0px' },
  );
  watched.set(el, show);
  observer.observe(el);
  return () => {
    watched.delete(el);
    observer?.unobserve(el);
  };
}

// A series with no count in the hour is not drawn (five flat lines on the baseline would hide each other).
function chartData(series: ToolRow['series']): uPlot.AlignedData {
  const n = Math.max(...SERIES.map((s) => series[s].length));
  const xs = Array.from({ length: n }, (_, i) => i);
  return [xs, ...SERIES.map((s) => (series[s].some((v) => v > 0) ? Array.from({ length: n }, (_, i) => series[s][i] ?? 0) : Array.from({ length: n }, () => null)))];
}

function options(): uPlot.Options {
  return {
    width: WIDTH,
    height: HEIGHT,
    pxAlign: 0,
    legend: { show: false },
    cursor: { show: false },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    axes: [{ show: false }, { show: false }],
    scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    padding: [2, 1, 2, 1],
    series: [{}, ...SERIES.map((s) => ({ label: s, stroke: COLOURS[s], width: 1.5, points: { show: false } }))],
  };
}

/** The words for a screen reader: the hour's sum per series that is not zero. */
export function summary(series: ToolRow['series']): string {
  const parts = SERIES.map((s) => [s, series[s].reduce((a, b) => a + b, 0)] as const).filter(([, n]) => n > 0);
  return parts.length === 0 ? 'no calls in the last hour' : `last hour: ${parts.map(([s, n]) => `${n} ${s}`).join(', ')}`;
}

export function Sparkline({ series }: { series: ToolRow['series'] }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const latest = useRef(series);
  latest.current = series;

  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const off = observe(el, (visible) => {
      if (visible && chart.current === null) chart.current = new uPlot(options(), chartData(latest.current), el);
      else if (!visible && chart.current !== null) {
        chart.current.destroy();
        chart.current = null;
      }
    });
    return () => {
      off();
      chart.current?.destroy();
      chart.current = null;
    };
  }, []);

  useEffect(() => chart.current?.setData(chartData(series)), [series]);

  return (
    <div class="spark">
      <div ref={box} class="spark-canvas" aria-hidden="true" style={{ width: `${WIDTH}px`, height: `${HEIGHT}px` }} />
      <span class="sr-only">{summary(series)}</span>
    </div>
  );
}

/** The colour key of the charts, once above the table. */
export function SparkLegend() {
  return (
    <ul class="legend" aria-label="Chart colours">
      {SERIES.map((s) => (
        <li key={s}>
          <span class="swatch" style={{ background: COLOURS[s] }} aria-hidden="true" />
          {s}
        </li>
      ))}
    </ul>
  );
}
