import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import { describeWithHandlers, idAt, resource, synthSpendguard, type Synthesized } from './test-helpers';

interface TaskState {
  Type: string;
  ResultPath?: string;
  Resource?: string;
  Parameters?: Record<string, unknown>;
  Retry?: Array<{ ErrorEquals: string[]; MaxAttempts: number }>;
  Catch?: Array<{ Next: string }>;
  Next?: string;
  ItemsPath?: string;
  ItemSelector?: Record<string, string>;
  MaxConcurrency?: number;
  ItemProcessor?: { StartAt: string; States: Record<string, TaskState> };
}

describeWithHandlers('SpendguardForecast', () => {
  let s: Synthesized;
  let definition: { StartAt: string; States: Record<string, TaskState> };
  let functionArn: string;
  beforeAll(() => {
    s = synthSpendguard();
    const props = resource(s.template, idAt(s.template, 'Forecast/StateMachine')).Properties as {
      DefinitionString: { 'Fn::Join': [string, unknown[]] };
    };
    const parts = props.DefinitionString['Fn::Join'][1];
    definition = JSON.parse(parts.map((p) => (typeof p === 'string' ? p : flattenCfnReference(p))).join(''));
    functionArn = `<${idAt(s.template, 'Forecast/Function')}.Arn>`;
  });

  it('runs load, then a Map over the organization ids it returns, with simulate → store per organization', () => {
    expect(definition.StartAt).toBe('Load');
    const load = definition.States.Load;
    const map = definition.States.PerOrganization;
    expect(load).toMatchObject({ Type: 'Task', Parameters: { task: 'load' }, Next: 'PerOrganization' });
    expect(map).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.orgIds',
      ItemSelector: { 'orgId.$': '$$.Map.Item.Value' },
      MaxConcurrency: 10,
    });
    const inner = map?.ItemProcessor;
    expect(inner?.StartAt).toBe('Simulate');
    // lambdas/forecast: simulate → { orgId, view }; store ← { orgId, view }.
    expect(inner?.States.Simulate).toMatchObject({
      Parameters: { task: 'simulate', 'orgId.$': '$.orgId' },
      ResultPath: '$.simulation',
      Next: 'Store',
    });
    expect(inner?.States.Store).toMatchObject({
      Parameters: { task: 'store', 'orgId.$': '$.orgId', 'view.$': '$.simulation.view' },
    });
  });

  it('invokes the one forecast function from every task, with retries on every error, isolating one org’s failure', () => {
    const inner = definition.States.PerOrganization?.ItemProcessor?.States ?? {};
    const tasks = [definition.States.Load, inner.Simulate, inner.Store];
    for (const task of tasks) {
      expect(task?.Resource).toBe(functionArn);
      expect(task?.Retry).toEqual(
        expect.arrayContaining([expect.objectContaining({ ErrorEquals: ['States.ALL'], MaxAttempts: 3 })]),
      );
    }
    expect(inner.Simulate?.Catch?.[0]?.Next).toBe('OrganizationFailed');
    expect(inner.Store?.Catch?.[0]?.Next).toBe('OrganizationFailed');
  });

  it('logs every execution event (without data) and traces with X-Ray', () => {
    expect(resource(s.template, idAt(s.template, 'Forecast/StateMachine')).Properties).toMatchObject({
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
      TracingConfiguration: { Enabled: true },
    });
  });

  it('is started hourly by an EventBridge Scheduler schedule', () => {
    s.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 hour)',
      State: 'ENABLED',
      Target: { Arn: { Ref: idAt(s.template, 'Forecast/StateMachine') }, Input: '{}' },
    });
  });

  it('gives the function a full vCPU for 10,000 iterations (and no price snapshot: it prices nothing)', () => {
    const props = resource(s.template, idAt(s.template, 'Forecast/Function')).Properties as {
      MemorySize: number;
      Timeout: number;
      Environment: { Variables: Record<string, unknown> };
    };
    expect(props).toMatchObject({ MemorySize: 1769, Timeout: 300 });
    expect(props.Environment.Variables.POWERTOOLS_SERVICE_NAME).toBe('forecast');
    expect(props.Environment.Variables.PRICES_BUCKET).toBeUndefined();
  });
});
