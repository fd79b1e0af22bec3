import type { MonitorHourlyRuns } from '../types.js';

const HOUR_MS = 3_600_000;

/**
 * Success rate per hour over the last `hours`, as a polyline: hours without runs leave a gap. Plain SVG, not a
 * chart library, because the overview draws a thousand of them.
 */
export function Sparkline({
  series,
  hours,
  now,
}: {
  series: MonitorHourlyRuns | undefined;
  hours: number;
  now: number;
}) {
  const width = 96;
  const height = 20;
  const first = Math.floor(now / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS;
  const points = (series?.hours ?? []).map((h) => {
    const x = ((Date.parse(h.hour) - first) / HOUR_MS / Math.max(1, hours - 1)) * (width - 4) + 2;
    const rate = h.runs === 0 ? 1 : (h.runs - h.failures) / h.runs;
    return { x, y: 2 + (1 - rate) * (height - 4), failed: h.failures > 0 };
  });
  const failures = (series?.hours ?? []).reduce((t, h) => t + h.failures, 0);
  const runs = (series?.hours ?? []).reduce((t, h) => t + h.runs, 0);
  return (
    <svg
      class="sparkline"
      width={width}
      height={height}
      role="img"
      aria-label={runs === 0 ? `no runs in ${hours} h` : `${runs} runs, ${failures} failed in ${hours} h`}
    >
      <polyline points={points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ')} />
      {/* A dot per hour with runs, so a lone hour shows where a line cannot. */}
      {points.map((p, i) => (
        <circle key={i} cx={p.x} cy={p.y} r={p.failed ? 2 : 1.5} class={p.failed ? 'failed' : undefined} />
      ))}
    </svg>
  );
}
