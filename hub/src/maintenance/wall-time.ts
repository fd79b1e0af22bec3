/**
 * Wall-clock times of an IANA time zone as "floating" dates: a Date whose UTC fields are the wall time's fields.
 * An RRULE is expanded on wall times (rrule's own TZID handling rezones through the host's zone), and each
 * occurrence is then placed in the zone here, with RFC 5545's rules for times DST skips or repeats.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** The wall time of `instant` in `timezone`, as a floating date (to the second). */
export function wallTimeOf(instant: Date, timezone: string): Date {
  const parts = Object.fromEntries(
    formatterOf(timezone)
      .formatToParts(instant)
      .map((part) => [part.type, Number(part.value)]),
  ) as Record<string, number>;
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second));
}

const offsetAt = (instantMs: number, timezone: string) =>
  wallTimeOf(new Date(instantMs), timezone).getTime() - Math.floor(instantMs / 1000) * 1000;

/**
 * The instant a wall time names in `timezone` (RFC 5545 3.3.5): a wall time DST repeats is its first instant; one
 * DST skips is read with the offset before the gap (02:30 on a spring-forward night is 03:30 summer time).
 */
export function instantOfWallTime(wall: Date, timezone: string): Date {
  const wallMs = wall.getTime();
  const before = offsetAt(wallMs - 86_400_000, timezone);
  const after = offsetAt(wallMs + 86_400_000, timezone);
  const fits = [before, after]
    .map((offset) => wallMs - offset)
    .filter((instantMs) => offsetAt(instantMs, timezone) === wallMs - instantMs)
    .sort((a, b) => a - b);
  return new Date(fits[0] ?? wallMs - before);
}
