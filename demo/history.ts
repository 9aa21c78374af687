/**
 * Ordinary past traffic for the dashboard's organization, so that its forecast (and the dashboard's
 * charts) have days of history to project from, not the demo's one minute. Posted like any client's
 * telemetry (`POST /api/ingest`), with past timestamps; priced and checked by the server as usual.
 */
import { prng } from './agents';

export interface HistoryEvent {
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  timestamp: string;
  eventId: string;
  featureId: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Expected calls per UTC hour of a weekday: a working day with a lunch dip and a quiet night (≈ 10 a day). */
const HOURLY_PROFILE = [
  0.06, 0.03, 0.03, 0.03, 0.06, 0.12, 0.24, 0.45, 0.75, 0.9, 0.9, 0.78, 0.54, 0.72, 0.9, 0.84, 0.72, 0.54,
  0.36, 0.24, 0.18, 0.15, 0.12, 0.09,
];

/**
 * `days` full UTC days of gpt-4o calls ending at the start of today (UTC): about 10 calls on a weekday
 * and a third of that on weekends, ≈ $0.25 a weekday. It is ingested before the organization's $0.30
 * daily cap is set (a busy past day may pass it), so history alone trips nothing. Calls are minutes apart and their sizes vary, so no guardrail layer sees a loop or a burst in
 * them. Few events on purpose: each one goes through both consumers (≈ 13 ms) before the fleet starts.
 * Deterministic for a given `now`'s day.
 */
export function historyEvents(now: number, days = 14): HistoryEvent[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const random = prng(today / DAY_MS);
  const events: HistoryEvent[] = [];
  for (let day = today - days * DAY_MS; day < today; day += DAY_MS) {
    const weekday = new Date(day).getUTCDay();
    const volume = weekday === 0 || weekday === 6 ? 0.35 : 1;
    for (let hour = 0; hour < 24; hour++) {
      const expected = (HOURLY_PROFILE[hour] ?? 0) * volume;
      // A rounded draw around the expected count: whole calls, some hours empty.
      const calls = Math.floor(expected + random());
      for (let c = 0; c < calls; c++) {
        const offset = Math.floor(((c + random() * 0.8) / Math.max(1, calls)) * HOUR_MS);
        events.push({
          model: 'gpt-4o',
          usage: {
            prompt_tokens: 600 + Math.floor(random() * 1800),
            completion_tokens: 800 + Math.floor(random() * 2400),
          },
          timestamp: new Date(day + hour * HOUR_MS + offset).toISOString(),
          eventId: `evt_demo_history_${events.length}`,
          featureId: 'catalog',
        });
      }
    }
  }
  return events;
}
