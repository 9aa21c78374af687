/**
 * A relay container as Lambda runs it: frozen between invocations, its lease timer does not run; what
 * fell due runs at the thaw, and the lease work it starts finishes before the invocation returns
 * (`LeaseAdmission.settled`, awaited by the Lambda handler and by the local relay pool).
 */
import { EventEmitter } from 'node:events';
import type { LambdaFunctionURLEvent } from 'aws-lambda';
import { FreezableTimers } from '../../local/proxy/freezable-timers';
import { TEST_ORG } from '../../local/proxy/test-support';
import { BudgetLeases } from '../shared/budget-leases';
import { MemoryBudgetLeaseStore } from '../shared/stores/budget-lease-store';
import type { OrgConfigStore } from '../shared/stores/org-config-store';
import { LeaseAdmission } from './budget-admission';
import { createStreamingHandler, type LambdaResponseStream } from './lambda-adapter';
import type { Relay } from './relay';

const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const scope = { kind: 'organization' as const, orgId: TEST_ORG };
const imm = (): Promise<void> => new Promise((r) => setImmediate(r));

const config: OrgConfigStore = {
  get: () =>
    Promise.resolve({
      budget: { dailyLimitUsd: 1, action: 'block' },
      policy: {},
      updatedAt: '2026-11-23T00:00:00.000Z',
    }),
  put: () => Promise.resolve(),
};

const call = () => ({
  provider: 'openai',
  flavor: 'openai' as const,
  model: 'gpt-4o-mini',
  body: Buffer.from(
    JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] }),
  ),
  atMs: Date.now(),
});

describe('a frozen relay container', () => {
  beforeEach(() =>
    jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }),
  );
  afterEach(() => jest.useRealTimers());

  it('runs no lease timer while frozen, runs it at the thaw, and settled() waits for the store write', async () => {
    const leases = new BudgetLeases({ store: new MemoryBudgetLeaseStore(), config, now: Date.now });
    // The store answers a release a few event-loop turns late, as a real store does.
    const release = leases.release.bind(leases);
    let releases = 0;
    leases.release = async (...args: Parameters<typeof release>) => {
      releases++;
      await imm();
      await imm();
      return release(...args);
    };
    const timers = new FreezableTimers();
    const a = new LeaseAdmission({ leases, holderId: 'relay-a', timers });
    const d = await a.admit(TEST_ORG, call());
    if (d.kind !== 'admitted') throw new Error('expected the call to be admitted');
    d.ticket.settle(7_000);
    await a.settled();
    timers.freeze(); // the invocation returned

    await jest.advanceTimersByTimeAsync(60_000); // the idle slice's report fell due at 25 s
    expect(releases).toBe(0);
    expect(timers.dueCount).toBe(1);
    expect(a.holderOf(TEST_ORG)?.unreportedNanos).toBe(7_000);

    timers.thaw(); // the next invocation
    expect(releases).toBe(1);
    expect(a.holderOf(TEST_ORG)?.unreportedNanos).toBe(7_000); // the write is still in flight
    await a.settled();
    expect(a.holderOf(TEST_ORG)?.unreportedNanos).toBe(0);
    const view = await leases.view(scope, { day: 1_000_000_000, month: null });
    expect(view.day.settledNanos).toBe(7_000);
    timers.dispose();
  });
});

class Sink extends EventEmitter implements LambdaResponseStream {
  writableFinished = false;
  write(): boolean {
    return true;
  }
  end(): void {
    this.writableFinished = true;
  }
  destroy(): void {}
}

describe('the Lambda handler', () => {
  it('awaits the pending work before the invocation returns', async () => {
    let pendingDone = false;
    const relay = {
      handle: () => Promise.resolve({ status: 200, kind: 'forwarded', recorded: true }),
    } as unknown as Relay;
    const handler = createStreamingHandler(() => relay, undefined, {
      beforeFreeze: async () => {
        await imm();
        await imm();
        pendingDone = true;
      },
    });
    const event = {
      rawPath: '/openai/v1/chat/completions',
      rawQueryString: '',
      headers: {},
      requestContext: { http: { method: 'POST' } },
      isBase64Encoded: false,
    } as unknown as LambdaFunctionURLEvent;
    await handler(event, new Sink());
    expect(pendingDone).toBe(true);
  });
});
