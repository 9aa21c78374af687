/**
 * The guardrail state's optimistic concurrency on dynalite: a correction written outside the stream
 * between a consumer's read and its write makes the consumer's write fail (its record is retried and
 * re-reads the state), instead of silently overwriting the correction.
 */
import { startBackendHarness, type BackendHarness } from '../../../test/backend-harness';

let h: BackendHarness;
beforeAll(async () => {
  h = await startBackendHarness();
});
afterAll(() => h.close());

describe('DynamoGuardrailStateStore', () => {
  it('a consumer write that raced a correction fails; once it re-reads, it keeps the correction', async () => {
    const store = h.services.guardrailState;
    expect(await store.put('org_race', { spend: 10 }, '1', null)).toBe(true);
    const consumerRead = await store.get('org_race');
    expect(consumerRead).toMatchObject({ state: { spend: 10 }, rev: 1 });

    // The admin's correction lands between the consumer's read and its write.
    expect(await store.update('org_race', (s) => ({ spend: (s as { spend: number }).spend - 10 }))).toBe(
      true,
    );
    const stale = await store.put('org_race', { spend: 10 + 3 }, '2', consumerRead.lastSeq, consumerRead.rev);
    expect(stale).toBe(false);

    const again = await store.get('org_race');
    expect(again).toMatchObject({ state: { spend: 0 }, rev: 2 });
    expect(await store.put('org_race', { spend: 0 + 3 }, '2', again.lastSeq, again.rev)).toBe(true);
    expect((await store.get('org_race')).state).toEqual({ spend: 3 });
  });

  it('an item written before revisions existed is read as revision 0 and written once', async () => {
    expect(await store().put('org_old', { spend: 1 }, '1', null)).toBe(true);
    const first = await store().get('org_old');
    expect(await store().put('org_old', { spend: 2 }, '2', first.lastSeq, first.rev)).toBe(true);
    // The same read cannot be written twice.
    expect(await store().put('org_old', { spend: 9 }, '3', first.lastSeq, first.rev)).toBe(false);
  });

  it('updates nothing for an organization without state', async () => {
    expect(await store().update('org_none', () => ({ spend: 1 }))).toBe(false);
    expect((await store().get('org_none')).lastSeq).toBeNull();
  });
});

function store() {
  return h.services.guardrailState;
}
