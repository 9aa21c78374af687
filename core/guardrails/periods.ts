/** UTC calendar periods for the financial caps: days and months as small integers. */

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { floor } = Math;

export const MS_PER_DAY = 86_400_000;

/** Days since the epoch (UTC) of a ms timestamp. */
export function utcDayIndex(ts: number): number {
  return floor(ts / MS_PER_DAY);
}

/** Months since year 0 (`year * 12 + month`, UTC) of a ms timestamp. */
export function utcMonthIndex(ts: number): number {
  const d = new Date(ts);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** First ms of the UTC day after the one containing `ts`. */
export function utcDayEnd(ts: number): number {
  return (utcDayIndex(ts) + 1) * MS_PER_DAY;
}

/** First ms of the UTC month after the one with index `month` (`year * 12 + month`). */
export function utcMonthEndOfIndex(month: number): number {
  return Date.UTC(floor(month / 12), (month % 12) + 1, 1);
}

/** First ms of the UTC month after the one containing `ts`. */
export function utcMonthEnd(ts: number): number {
  return utcMonthEndOfIndex(utcMonthIndex(ts));
}
