/**
 * The relay containers' shared identical-call runs on dynalite: a run of one request goes on within the
 * idle window, another request or a pause restarts it, and concurrent adds from many containers are
 * all counted (the relay's tight-loop case, lambdas/relay/loop-check.ts).
 */
import fc from 'fast-check';
import { localDataTable } from '../../../test/local-data-table';
import { DynamoLoopRunStore, type LoopRunKey } from './loop-run-store';

const local = localDataTable();
const store = () => new DynamoLoopRunStore(local.table);

const T0 = Date.UTC(2026, 10, 26, 5);
const IDLE = 2000;
let n = 0;
const runKey = (fingerprint: number): LoopRunKey => ({
  orgId: 'org_runs',
  keyId: `key${n}`,
  run: 'r1',
  fingerprint,
});

describe('DynamoLoopRunStore', () => {
  beforeEach(() => n++);

  it('adds to a run of one request, restarts it for another request or after the idle window', async () => {
    const f = 2 ** 52 - 1; // the largest identity: stored exactly
    expect(await store().add(runKey(f), 2, T0, IDLE)).toBe(2);
    expect(await store().add(runKey(f), 1, T0 + 10, IDLE)).toBe(3);
    expect(await store().add(runKey(f), 2, T0 + 10 + IDLE, IDLE)).toBe(5); // exactly at the window: goes on
    expect(await store().add(runKey(7), 1, T0 + 3000, IDLE)).toBe(1); // another request
    expect(await store().add(runKey(7), 1, T0 + 3000 + IDLE + 1, IDLE)).toBe(1); // a pause
  });

  it('counts every add of concurrent containers (conditional ADD, no lost update)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 2, maxLength: 12 }),
        async (adds) => {
          n++;
          await store().add(runKey(42), 1, T0, IDLE);
          await Promise.all(adds.map((calls) => store().add(runKey(42), calls, T0 + 1, IDLE)));
          expect(await store().add(runKey(42), 0, T0 + 2, IDLE)).toBe(1 + adds.reduce((a, b) => a + b, 0));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("gives the same counts whichever write it tries first (the container's guess only saves a round trip)", async () => {
    for (const guess of [true, false]) {
      n++;
      expect(await store().add(runKey(9), 1, T0, IDLE, guess)).toBe(1);
      expect(await store().add(runKey(9), 1, T0 + 1, IDLE, !guess)).toBe(2);
      expect(await store().add(runKey(8), 1, T0 + 2, IDLE, guess)).toBe(1);
      expect(await store().add(runKey(8), 2, T0 + 3, IDLE, guess)).toBe(3);
    }
  });

  it('a reset starts only a run that reached the threshold again (a run begun after a Resume is left)', async () => {
    const id = { orgId: 'org_runs', keyId: `key${n}`, run: 'r1' };
    await store().add(runKey(5), 5, T0, IDLE);
    await store().reset(id, 4);
    expect(await store().add(runKey(5), 1, T0 + 1, IDLE)).toBe(1);
    await store().reset(id, 4);
    expect(await store().add(runKey(5), 1, T0 + 2, IDLE)).toBe(2);
  });

  it('a Resume restarts every run of the key (all its models), and of no other key; of the organization, all', async () => {
    const add = (keyId: string, run: string) =>
      store().add({ orgId: 'org_reset_all', keyId, run, fingerprint: 3 }, 3, T0, IDLE);
    for (const [keyId, run] of [
      ['kA', 'm1'],
      ['kA', 'm2'],
      ['kB', 'm1'],
    ] as const)
      await add(keyId, run);
    await store().resetAll('org_reset_all', 'kA');
    expect(await add('kA', 'm1')).toBe(3);
    expect(await add('kA', 'm2')).toBe(3);
    expect(await add('kB', 'm1')).toBe(6);
    await store().resetAll('org_reset_all', null);
    expect(await add('kB', 'm1')).toBe(3);
  });
});
