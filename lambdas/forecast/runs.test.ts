import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { BackgroundForecastRuns, newForecastRunId, runBelongsTo, StepFunctionsForecastRuns } from './runs';

const SM = 'arn:aws:states:eu-west-1:123456789012:stateMachine:SpendguardForecastStateMachine-abc';

describe('forecast run ids', () => {
  it('are valid execution names and belong to exactly the organization they were issued to', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 64 }),
        fc.string({ minLength: 1, maxLength: 64 }),
        fc.uuid(),
        (a, b, uuid) => {
          const id = newForecastRunId(a, uuid);
          expect(id).toMatch(/^[A-Za-z0-9_-]{1,80}$/); // Step Functions execution-name rules
          expect(runBelongsTo(id, a)).toBe(true);
          if (a !== b) expect(runBelongsTo(id, b)).toBe(false);
        },
      ),
    );
  });

  it('refuses anything that is not a run id', () => {
    for (const bad of [
      '',
      'od-',
      '../x',
      `od-${'0'.repeat(16)}-not-a-uuid`,
      'od-zzzzzzzzzzzzzzzz-1b4e28ba-2fa1-11d2-883f-0016d3cca427',
    ]) {
      expect(runBelongsTo(bad, 'org_a')).toBe(false);
    }
  });
});

describe('BackgroundForecastRuns (the local stand-in)', () => {
  it('answers at once with a running run, then reports success or failure when the work ends', async () => {
    let finish: (() => void) | undefined;
    const runs = new BackgroundForecastRuns(
      (orgId) =>
        orgId === 'org_bad'
          ? Promise.reject(new Error('no data'))
          : new Promise<void>((resolve) => {
              finish = resolve;
            }),
      () => Date.parse('2026-11-23T12:00:00.000Z'),
    );
    const ok = await runs.start('org_a');
    expect(ok).toEqual({
      runId: ok.runId,
      status: 'running',
      startedAt: '2026-11-23T12:00:00.000Z',
      stoppedAt: null,
    });
    expect((await runs.get('org_a', ok.runId))?.status).toBe('running');
    expect(await runs.get('org_b', ok.runId)).toBeUndefined(); // another organization cannot see it
    finish?.();
    const bad = await runs.start('org_bad');
    await runs.settled();
    expect(await runs.get('org_a', ok.runId)).toMatchObject({
      status: 'succeeded',
      stoppedAt: '2026-11-23T12:00:00.000Z',
    });
    expect(await runs.get('org_bad', bad.runId)).toMatchObject({ status: 'failed' });
  });
});

describe('StepFunctionsForecastRuns', () => {
  const sfn = mockClient(SFNClient);
  beforeEach(() => sfn.reset());

  it('starts an execution named by the run id with the organization as input', async () => {
    sfn
      .on(StartExecutionCommand)
      .resolves({ executionArn: 'x', startDate: new Date('2026-11-23T12:00:00Z') });
    const run = await new StepFunctionsForecastRuns(new SFNClient({ region: 'eu-west-1' }), SM).start(
      'org_a',
    );
    const call = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(call).toEqual({ stateMachineArn: SM, name: run.runId, input: '{"orgId":"org_a"}' });
    expect(runBelongsTo(run.runId, 'org_a')).toBe(true);
  });

  it('describes only the caller’s executions, mapping Step Functions statuses', async () => {
    const runs = new StepFunctionsForecastRuns(new SFNClient({ region: 'eu-west-1' }), SM);
    const runId = newForecastRunId('org_a', '1b4e28ba-2fa1-11d2-883f-0016d3cca427');
    sfn.on(DescribeExecutionCommand).resolves({
      status: 'SUCCEEDED',
      startDate: new Date('2026-11-23T12:00:00Z'),
      stopDate: new Date('2026-11-23T12:00:09Z'),
    } as never);
    expect(await runs.get('org_a', runId)).toEqual({
      runId,
      status: 'succeeded',
      startedAt: '2026-11-23T12:00:00.000Z',
      stoppedAt: '2026-11-23T12:00:09.000Z',
    });
    expect(sfn.commandCalls(DescribeExecutionCommand)[0]?.args[0].input.executionArn).toBe(
      `arn:aws:states:eu-west-1:123456789012:execution:SpendguardForecastStateMachine-abc:${runId}`,
    );
    expect(await runs.get('org_b', runId)).toBeUndefined();
    expect(sfn.commandCalls(DescribeExecutionCommand)).toHaveLength(1); // never asked for another org's run
    sfn.on(DescribeExecutionCommand).resolves({ status: 'TIMED_OUT', startDate: new Date() } as never);
    expect((await runs.get('org_a', runId))?.status).toBe('failed');
    sfn
      .on(DescribeExecutionCommand)
      .rejects(Object.assign(new Error('gone'), { name: 'ExecutionDoesNotExist' }));
    expect(await runs.get('org_a', runId)).toBeUndefined();
  });
});
