/** Figures as the pages show them: "—" for what is not known, never a misleading 0. */
export const ms = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : `${Math.round(value)} ms`;
export const percent = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : `${value.toFixed(value === 100 ? 0 : 1)} %`;
export const when = (iso: string | null | undefined) =>
  iso === null || iso === undefined
    ? '—'
    : new Date(iso).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
/** Expected and actual values of an assertion, as JSON so a string and a number look different. */
export const shown = (value: unknown) => (value === undefined ? '(absent)' : JSON.stringify(value));
/** A chart's time tick (Unix seconds) as `MM-DD HH:mm` in UTC, 24-hour like `when`. */
export const utcTick = (seconds: number) =>
  new Date(seconds * 1000).toISOString().slice(5, 16).replace('T', ' ');
