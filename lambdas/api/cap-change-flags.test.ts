import { utcDayIndex, utcMonthIndex } from '../../core/guardrails/periods';
import { initialOrgState } from '../../core/guardrails/state';
import { startBackendHarness, type BackendHarness } from '../../test/backend-harness';
import type { Principal } from '../shared/principal';
import type { Services } from '../shared/services';
import { enforcementDeps, pushFlag } from '../shared/enforcement';
import { settleBudgetFlags } from './cap-change-flags';

let h: BackendHarness;
beforeAll(async () => {
  h = await startBackendHarness();
});
afterAll(() => h.close());

const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const admin = (orgId: string): Principal => ({
  kind: 'person',
  orgId,
  sub: 'admin',
  email: null,
  role: 'admin',
});

/** An organization with one key whose layer 1 has counted `spentUsd` today, and a budget as stored. */
async function organization(orgId: string, spentUsd: number, dailyLimitUsd: number): Promise<void> {
  await h.createKey(orgId);
  const state = initialOrgState();
  state.layers.financialLimits = {
    ...state.layers.financialLimits,
    day: utcDayIndex(NOW),
    month: utcMonthIndex(NOW),
    daySpendNanos: spentUsd * 1e9,
    monthSpendNanos: spentUsd * 1e9,
  };
  expect(await h.services.guardrailState.put(orgId, state, '1', null)).toBe(true);
  await h.services.config.put(
    orgId,
    { budget: { dailyLimitUsd, action: 'block' }, policy: {}, updatedAt: '' },
    0,
  );
}

const budgetFlags = async (orgId: string) =>
  (await h.services.flags.listByOrg(orgId, NOW)).map((f) => f.triggerType).sort();

beforeEach(() => h.setNow(NOW));

describe('settleBudgetFlags', () => {
  it('sets the flag for a cap at or below spend, clears it for one above, from the settings as stored', async () => {
    await organization('org_settle', 2, 1);
    expect(await settleBudgetFlags(h.services, admin('org_settle'))).toEqual({
      cleared: [],
      set: ['budget_daily_hard'],
    });
    expect(await budgetFlags('org_settle')).toEqual(['budget_daily_hard']);
    await h.services.config.put(
      'org_settle',
      { budget: { dailyLimitUsd: 2.5 }, policy: {}, updatedAt: '' },
      1,
    );
    expect(await settleBudgetFlags(h.services, admin('org_settle'))).toEqual({
      cleared: ['budget_daily_hard'],
      set: [],
    });
    expect(await budgetFlags('org_settle')).toEqual([]);
  });

  it('a change that settled against settings another change replaced meanwhile settles again on the winner’s', async () => {
    // The winner lowered the cap to $0.5 (revision 1); this change read its own settings ($10) before that
    // write landed, as the slower of two concurrent PUTs does.
    await organization('org_race', 2, 0.5);
    const stale = { budget: { dailyLimitUsd: 10, action: 'block' }, policy: {}, updatedAt: '', rev: 0 };
    let reads = 0;
    const racing: Services = {
      ...h.services,
      config: {
        ...h.services.config,
        get: async (orgId) => (reads++ === 0 ? stale : h.services.config.get(orgId)),
      },
    };
    // The winner's own settle set the flag; the slower change's first pass clears it, then sees revision 1.
    await settleBudgetFlags(h.services, admin('org_race'));
    expect(await budgetFlags('org_race')).toEqual(['budget_daily_hard']);
    await settleBudgetFlags(racing, admin('org_race'));
    expect(reads).toBeGreaterThan(1);
    expect(await budgetFlags('org_race')).toEqual(['budget_daily_hard']);
  });

  it('leaves a person’s THROTTLED kill standing when a cap is lowered to spend (it would be replaced, then deleted on a raise)', async () => {
    await organization('org_throttled', 2, 10);
    await pushFlag(
      await enforcementDeps(h.services),
      {
        orgId: 'org_throttled',
        action: 'THROTTLED',
        triggerType: 'manual',
        observedValue: 1,
        thresholdValue: 1,
        mode: 'throttle',
      },
      NOW,
    );
    await h.services.config.put(
      'org_throttled',
      { budget: { dailyLimitUsd: 1 }, policy: {}, updatedAt: '' },
      1,
    );
    expect(await settleBudgetFlags(h.services, admin('org_throttled'))).toEqual({ cleared: [], set: [] });
    await h.services.config.put(
      'org_throttled',
      { budget: { dailyLimitUsd: 10 }, policy: {}, updatedAt: '' },
      2,
    );
    await settleBudgetFlags(h.services, admin('org_throttled'));
    const flags = await h.services.flags.listByOrg('org_throttled', NOW);
    expect(flags.map((f) => [f.triggerType, f.state])).toEqual([['manual', 'THROTTLED']]);
  });

  it('records nothing for an organization without a key: no flag item was stored', async () => {
    await h.services.config.put(
      'org_keyless',
      { budget: { dailyLimitUsd: 0 }, policy: {}, updatedAt: '' },
      0,
    );
    const state = initialOrgState();
    expect(await h.services.guardrailState.put('org_keyless', state, '1', null)).toBe(true);
    expect(await settleBudgetFlags(h.services, admin('org_keyless'))).toEqual({ cleared: [], set: [] });
    expect((await h.services.audit.list('org_keyless', { limit: 10, cursor: null }, NOW)).entries).toEqual(
      [],
    );
    expect(await h.services.trips.recent('org_keyless', 10)).toEqual([]);
  });
});
