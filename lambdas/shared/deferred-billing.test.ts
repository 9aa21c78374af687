import { deferredBillingPolicy } from './deferred-billing';
import type { OrgConfig } from './stores/org-config-store';

const record = (budget: unknown): OrgConfig => ({ budget, policy: {}, updatedAt: '2026-11-26T00:00:00Z' });

describe('deferredBillingPolicy', () => {
  it("follows the organization's budget setting, read per call", async () => {
    let budget: unknown = { dailyLimitUsd: 5, action: 'block', allowDeferredBilling: true };
    const allowed = deferredBillingPolicy({ config: { get: () => Promise.resolve(record(budget)) } });
    await expect(allowed('org-a')).resolves.toBe(true);
    budget = { dailyLimitUsd: 5, action: 'block' };
    await expect(allowed('org-a')).resolves.toBe(false);
    budget = { allowDeferredBilling: 'true' }; // a stored string is not consent
    await expect(allowed('org-a')).resolves.toBe(false);
  });

  it('lets the deployment list allow an organization whatever its setting', async () => {
    const allowed = deferredBillingPolicy({
      config: { get: () => Promise.resolve(undefined) },
      allowList: new Set(['org-listed']),
    });
    await expect(allowed('org-listed')).resolves.toBe(true);
    await expect(allowed('org-other')).resolves.toBe(false);
  });

  it('refuses when the setting cannot be read (never fails open on a cost it cannot bound)', async () => {
    const allowed = deferredBillingPolicy({ config: { get: () => Promise.reject(new Error('down')) } });
    await expect(allowed('org-a')).resolves.toBe(false);
  });
});
