import { HEALTHS, HEALTH_LABELS, type Health } from './overview-health.js';

export function Choice(props: {
  id: string;
  label: string;
  value: string;
  options: Array<[string, string]>;
  onChange: (v: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

export function Pager({
  index,
  pages,
  onPage,
}: {
  index: number;
  pages: number;
  onPage: (index: number) => void;
}) {
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages of monitors">
      <button type="button" disabled={index === 0} onClick={() => onPage(index - 1)}>
        Previous
      </button>
      <span>
        Page {index + 1} of {pages}
      </span>
      <button type="button" disabled={index + 1 >= pages} onClick={() => onPage(index + 1)}>
        Next
      </button>
    </nav>
  );
}

/**
 * How many monitors are in each health, each a toggle that filters the list to it (pressed: the filter in force).
 * The counts are of the monitors the other filters and the search leave, so they add up to what the list can show.
 */
export function HealthSummary({
  counts,
  selected,
  onSelect,
}: {
  counts: Record<Health, number>;
  selected: Health | '';
  onSelect: (health: Health | '') => void;
}) {
  return (
    <ul class="health-summary" aria-label="Monitors by health">
      {HEALTHS.map((health) => (
        <li key={health}>
          <button
            type="button"
            class={`health-count ${health}`}
            aria-pressed={selected === health}
            onClick={() => onSelect(selected === health ? '' : health)}
          >
            <span class="count">{counts[health]}</span> {HEALTH_LABELS[health]}
          </button>
        </li>
      ))}
    </ul>
  );
}
