import { percent } from '../format.js';

/** One bar per day, oldest first; a day without runs is grey, and every bar says its figure to a screen reader. */
export function UptimeBars({ days }: { days: Array<{ day: string; uptimePercent: number | null }> }) {
  const level = (u: number | null) => (u === null ? 'none' : u >= 99.9 ? 'up' : u >= 95 ? 'partial' : 'down');
  return (
    <ol class="uptime" aria-label={`Uptime per day, last ${days.length} days`}>
      {days.map((d) => (
        <li
          key={d.day}
          class={`day ${level(d.uptimePercent)}`}
          title={`${d.day}: ${d.uptimePercent === null ? 'no runs' : percent(d.uptimePercent)}`}
        >
          <span class="visually-hidden">
            {d.day}: {d.uptimePercent === null ? 'no runs' : percent(d.uptimePercent)}
          </span>
        </li>
      ))}
    </ol>
  );
}
