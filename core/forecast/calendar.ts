/** UTC calendar arithmetic for the forecast: hours, hour-of-week, days and months. */

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { floor } = Math;

export const MS_PER_HOUR = 3_600_000;
export const MS_PER_DAY = 86_400_000;
export const HOURS_PER_WEEK = 168;

/** Start of the UTC hour containing `ts`. */
export function hourStart(ts: number): number {
  return floor(ts / MS_PER_HOUR) * MS_PER_HOUR;
}

/** Hour of the week of the UTC hour containing `ts`: 0 = Monday 00:00–01:00 UTC … 167 = Sunday 23:00. */
export function hourOfWeek(ts: number): number {
  // 1970-01-01 was a Thursday: Monday 00:00 is 72 hours before the epoch's first hour.
  const h = floor(ts / MS_PER_HOUR) + 72;
  return ((h % HOURS_PER_WEEK) + HOURS_PER_WEEK) % HOURS_PER_WEEK;
}

/** Hour of the day (UTC) of `ts`. */
export function hourOfDay(ts: number): number {
  return hourOfWeek(ts) % 24;
}

/** Start of the UTC day containing `ts`. */
export function dayStart(ts: number): number {
  return floor(ts / MS_PER_DAY) * MS_PER_DAY;
}

/** Start of the UTC month containing `ts`. */
export function monthStart(ts: number): number {
  const d = new Date(ts);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** Start of the UTC month after the one containing `ts`. */
export function nextMonthStart(ts: number): number {
  const d = new Date(ts);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
