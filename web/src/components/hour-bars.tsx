import { useEffect, useState } from 'preact/hooks';
import type { MonitorHourlyRuns } from '../types.js';

const HOUR_MS = 3_600_000;
const BAR_WIDTH = 5;
const STEP = BAR_WIDTH + 1;
const HEIGHT = 18;

type HourState = 'up' | 'partial' | 'down' | 'none';

/** All runs passed, some failed, all failed, or no run: the colours of the uptime bars, one bar per hour. */
function stateOf(runs: number, failures: number): HourState {
  if (runs === 0) return 'none';
  if (failures === 0) return 'up';
  return failures === runs ? 'down' : 'partial';
}

const firstHourOf = (now: number, hours: number) =>
  Math.floor(now / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS;

/** "14:00 UTC: 12 runs, 1 failed": what the tooltip says of one hour. */
function hourText(series: MonitorHourlyRuns | undefined, start: number): string {
  const hour = series?.hours.find((h) => Date.parse(h.hour) === start);
  const counts =
    hour === undefined || hour.runs === 0 ? 'no runs' : `${hour.runs} runs, ${hour.failures} failed`;
  return `${new Date(start).toISOString().slice(11, 16)} UTC: ${counts}`;
}

/**
 * The last `hours` hours as one bar each, oldest left, as Uptime Kuma's list draws a monitor's last beats: green
 * when every run passed, amber when some failed, red when all failed, grey without runs. The whole says its totals
 * to a screen reader and `data-hours` lists each hour's colour; the hour under the pointer is told by the page's one `HourTooltip`, not by a title per bar:
 * a hundred rows of 24 titles doubled the time to draw the page.
 */
export function HourBars({
  monitorId,
  series,
  hours,
  now,
}: {
  monitorId: string;
  series: MonitorHourlyRuns | undefined;
  hours: number;
  now: number;
}) {
  const first = firstHourOf(now, hours);
  const byHour = new Map((series?.hours ?? []).map((h) => [Date.parse(h.hour), h]));
  const failures = (series?.hours ?? []).reduce((t, h) => t + h.failures, 0);
  const runs = (series?.hours ?? []).reduce((t, h) => t + h.runs, 0);
  const width = hours * STEP - 1;
  const states = Array.from({ length: hours }, (_, i) => {
    const hour = byHour.get(first + i * HOUR_MS);
    return stateOf(hour?.runs ?? 0, hour?.failures ?? 0);
  });
  // One path per colour rather than a rect per hour: six times fewer elements for the page to build and lay out.
  const paths = new Map<HourState, string>();
  states.forEach((state, i) =>
    paths.set(state, `${paths.get(state) ?? ''}M${i * STEP} 0h${BAR_WIDTH}v${HEIGHT}h-${BAR_WIDTH}z`),
  );
  return (
    <svg
      class="hour-bars"
      data-monitor={monitorId}
      data-hours={states.join(' ')}
      width={width}
      height={HEIGHT}
      role="img"
      aria-label={runs === 0 ? `no runs in ${hours} h` : `${runs} runs, ${failures} failed in ${hours} h`}
    >
      {[...paths].map(([state, d]) => (
        <path key={state} class={state} d={d} />
      ))}
    </svg>
  );
}

/** The one tooltip of every `HourBars` on the page: the hour under the pointer with its runs and failures. */
export function HourTooltip({
  hourly,
  hours,
  now,
}: {
  hourly: Map<string, MonitorHourlyRuns>;
  hours: number;
  now: number;
}) {
  const [tip, setTip] = useState<{ text: string; x: number; y: number } | undefined>(undefined);
  useEffect(() => {
    const onMove = (event: PointerEvent) => {
      const bars = (event.target as Element | null)?.closest?.('svg.hour-bars');
      if (bars === null || bars === undefined) return setTip(undefined);
      const box = bars.getBoundingClientRect();
      const index = Math.min(hours - 1, Math.max(0, Math.floor((event.clientX - box.left) / STEP)));
      const series = hourly.get(bars.getAttribute('data-monitor') ?? '');
      setTip({
        text: hourText(series, firstHourOf(now, hours) + index * HOUR_MS),
        x: box.left + index * STEP,
        y: box.bottom + 4,
      });
    };
    document.addEventListener('pointermove', onMove);
    return () => document.removeEventListener('pointermove', onMove);
  }, [hourly, hours, now]);
  if (tip === undefined) return null;
  return (
    <div class="hour-tip" role="tooltip" style={{ left: `${tip.x}px`, top: `${tip.y}px` }}>
      {tip.text}
    </div>
  );
}
