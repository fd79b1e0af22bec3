import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { utcTick } from '../format.js';
import type { Run } from '../types.js';

/** Duration of each recent finished run over time (uPlot on a canvas); the table beside it carries the figures. */
export function LatencyChart({ runs, label }: { runs: Run[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const finished = runs
      .filter((r) => r.startedAt !== null && r.duration_ms !== null)
      .sort((a, b) => Date.parse(a.startedAt as string) - Date.parse(b.startedAt as string));
    if (box.current === null || finished.length === 0) return;
    const first = Date.parse(finished[0]?.startedAt as string) / 1000;
    const last = Date.parse(finished.at(-1)?.startedAt as string) / 1000;
    const chart = new uPlot(
      {
        width: Math.min(720, box.current.clientWidth || 720),
        height: 180,
        series: [{}, { label: 'duration (ms)', stroke: '#1f5fbf', width: 1.5, points: { show: true } }],
        // 24-hour UTC, as every other time of the console, not uPlot's local 12-hour dates.
        axes: [{ values: (_u, splits) => splits.map(utcTick), space: 100 }, { label: 'ms' }],
        // A static legend: a live one reads "--" until the pointer is over the chart.
        legend: { live: false },
        // One run has no span of its own: show the hour around it rather than uPlot's default of years.
        scales: {
          x: { time: true, range: () => (first === last ? [first - 3600, last + 3600] : [first, last]) },
        },
      },
      [
        finished.map((r) => Date.parse(r.startedAt as string) / 1000),
        finished.map((r) => r.duration_ms as number),
      ],
      box.current,
    );
    return () => chart.destroy();
  }, [runs]);
  return <div ref={box} class="latency-chart" role="img" aria-label={label} />;
}
