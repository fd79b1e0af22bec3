import { percent } from '../format.js';

type Day = { day: string; uptimePercent: number | null };

/**
 * The mean of the days' uptime, each day weighing the same; days without runs are left out. null without any. Each
 * day's figure is time-weighted from its first result (docs/metrics.md), so this is the share of the days with runs
 * the monitor was up, to within a day's weight.
 */
export function meanUptime(days: readonly Day[]): number | null {
  const known = days.flatMap((d) => (d.uptimePercent === null ? [] : [d.uptimePercent]));
  return known.length === 0 ? null : known.reduce((t, u) => t + u, 0) / known.length;
}

const dayText = (d: Day) =>
  `${d.day}: ${d.uptimePercent === null ? 'no runs' : `${percent(d.uptimePercent)} up`}`;

/**
 * One bar per day, oldest first, with the first and last dates under them; a day without runs is grey, and every
 * bar says its date and figure as a tooltip and to a screen reader.
 */
export function UptimeBars({ days }: { days: Day[] }) {
  const level = (u: number | null) => (u === null ? 'none' : u >= 99.9 ? 'up' : u >= 95 ? 'partial' : 'down');
  return (
    <div class="uptime-days">
      <ol class="uptime" aria-label={`Uptime per day, last ${days.length} days`}>
        {days.map((d) => (
          <li key={d.day} class={`day ${level(d.uptimePercent)}`} title={dayText(d)}>
            <span class="visually-hidden">{dayText(d)}</span>
          </li>
        ))}
      </ol>
      {days.length > 0 && (
        <p class="uptime-axis" aria-hidden="true">
          <span>{days[0]?.day}</span>
          <span>{days.at(-1)?.day} (today, UTC)</span>
        </p>
      )}
    </div>
  );
}
