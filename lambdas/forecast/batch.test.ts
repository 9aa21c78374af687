/**
 * The Distributed Map's child task over in-memory stores: one organization's failure is isolated; only a
 * batch where every organization fails throws (so Step Functions retries it).
 */
import type { Services } from '../shared/services';
import { forecastBatch } from './tasks';

const NOW = Date.parse('2026-11-23T12:30:00.000Z');

function fakeServices(failing: ReadonlySet<string>) {
  const stored = new Map<string, unknown>();
  const services = {
    now: () => NOW,
    aggregates: {
      range: async (orgId: string) => {
        if (failing.has(orgId)) throw new Error(`aggregates of ${orgId} unreadable`);
        return [];
      },
    },
    config: { get: async () => undefined },
    forecasts: {
      get: async (orgId: string) => stored.get(orgId),
      put: async (orgId: string, value: unknown) => void stored.set(orgId, value),
    },
  } as unknown as Pick<Services, 'aggregates' | 'config' | 'now' | 'forecasts'>;
  return { services, stored };
}

describe('forecastBatch', () => {
  it('stores every organization it can and reports the others, in one pass', async () => {
    const { services, stored } = fakeServices(new Set(['org_b']));
    const failures: string[] = [];
    const outcome = await forecastBatch(services, ['org_a', 'org_b', 'org_c'], (orgId) =>
      failures.push(orgId),
    );
    expect(outcome).toEqual({ stored: 2, failed: 1 });
    expect(failures).toEqual(['org_b']);
    expect([...stored.keys()].sort()).toEqual(['org_a', 'org_c']);
    expect(stored.get('org_a')).toMatchObject({ computedAt: new Date(NOW).toISOString() });
  });

  it('throws when every organization of the batch failed (a systemic fault: Step Functions retries)', async () => {
    const { services } = fakeServices(new Set(['org_a', 'org_b']));
    await expect(forecastBatch(services, ['org_a', 'org_b'], () => undefined)).rejects.toThrow(/unreadable/);
  });

  it('does nothing for an empty batch', async () => {
    const { services, stored } = fakeServices(new Set());
    await expect(forecastBatch(services, [], () => undefined)).resolves.toEqual({ stored: 0, failed: 0 });
    expect(stored.size).toBe(0);
  });
});
