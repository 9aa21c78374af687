/**
 * The Bedrock account claims on real DynamoDB (dynalite): whatever organizations store and delete, in
 * whatever order, an account is owned by at most one organization, the one whose setting names it; a
 * store that would take another organization's account is refused and changes nothing.
 */
import fc from 'fast-check';
import { startBackendHarness, type BackendHarness } from '../../../test/backend-harness';
import { BedrockAccountClaimedError } from './bedrock-reconciliation-store';

let h: BackendHarness;
beforeAll(async () => {
  h = await startBackendHarness();
});
afterAll(() => h.close());

type Op = { kind: 'put'; org: number; account: number } | { kind: 'delete'; org: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('put' as const),
    org: fc.integer({ min: 0, max: 2 }),
    account: fc.integer({ min: 0, max: 1 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), org: fc.integer({ min: 0, max: 2 }) }),
);

let run = 0;

describe('Bedrock account claims (model-based)', () => {
  it('one owner per account, always the organization whose setting names it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        // Fresh names per run: the table is shared by every run.
        run += 1;
        const org = (i: number) => `org_p${run}_${i}`;
        const account = (i: number) => `${run}`.padStart(10, '0') + `0${i}`;
        const settings = new Map<number, number>();
        const claims = new Map<number, number>();
        const store = h.services.bedrockReconciliation;
        for (const o of ops) {
          if (o.kind === 'put') {
            const holder = claims.get(o.account);
            const result = await store
              .put(org(o.org), { account: account(o.account), regions: ['us-east-1'] })
              .then(
                () => 'ok',
                (err: unknown) => err,
              );
            if (holder !== undefined && holder !== o.org) {
              expect(result).toBeInstanceOf(BedrockAccountClaimedError);
              continue;
            }
            expect(result).toBe('ok');
            const previous = settings.get(o.org);
            claims.set(o.account, o.org);
            settings.set(o.org, o.account);
            if (previous !== undefined && previous !== o.account && claims.get(previous) === o.org) {
              claims.delete(previous);
            }
          } else {
            await store.delete(org(o.org));
            const previous = settings.get(o.org);
            settings.delete(o.org);
            if (previous !== undefined && claims.get(previous) === o.org) claims.delete(previous);
          }
          for (const a of [0, 1]) {
            const owner = await store.ownerOf(account(a));
            const expected = claims.get(a);
            expect(owner).toBe(expected === undefined ? undefined : org(expected));
          }
          for (const g of [0, 1, 2]) {
            const setting = await store.get(org(g));
            const expected = settings.get(g);
            expect(setting?.account).toBe(expected === undefined ? undefined : account(expected));
            // A stored setting's account is always held by its organization.
            if (expected !== undefined) expect(claims.get(expected)).toBe(g);
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it('two organizations claiming one account at once: exactly one wins', async () => {
    const store = h.services.bedrockReconciliation;
    for (let i = 0; i < 5; i++) {
      const account = `99990000000${i}`;
      const results = await Promise.allSettled(
        ['org_race_a', 'org_race_b', 'org_race_c'].map((o) =>
          store.put(`${o}${i}`, { account, regions: [] }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const winner = await store.ownerOf(account);
      expect(['a', 'b', 'c'].map((x) => `org_race_${x}${i}`)).toContain(winner);
    }
  });
});
