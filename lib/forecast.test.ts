import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import { Match } from 'aws-cdk-lib/assertions';
import {
  describeWithHandlers,
  functionPermissions,
  idAt,
  resource,
  synthSpendguard,
  type Synthesized,
} from './test-helpers';

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
  let runsBucket: string;
  beforeAll(() => {
    s = synthSpendguard();
    const props = resource(s.template, idAt(s.template, 'Forecast/StateMachine')).Properties as {
      DefinitionString: { 'Fn::Join': [string, unknown[]] };
    };
    const parts = props.DefinitionString['Fn::Join'][1];
    definition = JSON.parse(parts.map((p) => (typeof p === 'string' ? p : flattenCfnReference(p))).join(''));
    functionArn = `<${idAt(s.template, 'Forecast/Function')}.Arn>`;
    runsBucket = `<${idAt(s.template, 'Forecast/Runs')}>`;
  });

  it('runs load (the list to S3), then a Distributed Map of Express children over batches of 25', () => {
    expect(definition.StartAt).toBe('Load');
    const load = definition.States.Load;
    const map = definition.States.PerOrganizationBatch as TaskState & Record<string, unknown>;
    expect(load).toMatchObject({
      Type: 'Task',
      Parameters: { task: 'load', 'input.$': '$', 'executionName.$': '$$.Execution.Name' },
      ResultPath: '$.orgList',
      Next: 'PerOrganizationBatch',
    });
    expect(map).toMatchObject({
      Type: 'Map',
      ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'EXPRESS' } },
      ItemReader: {
        ReaderConfig: { InputType: 'JSON' },
        Parameters: { Bucket: runsBucket, 'Key.$': '$.orgList.key' },
      },
      ItemBatcher: { MaxItemsPerBatch: 25 },
      MaxConcurrency: 40,
      ToleratedFailurePercentage: 5,
      // Results to S3, never into the parent's 256 KB state.
      ResultWriter: { Parameters: { Bucket: runsBucket, Prefix: 'results' } },
      ResultPath: null,
    });
    expect(map.ItemProcessor?.States.ForecastBatch).toMatchObject({
      Parameters: { task: 'forecastBatch', 'orgIds.$': '$.Items' },
    });
  });

  it('invokes the one forecast function from both tasks, with retries on every error', () => {
    const tasks = [
      definition.States.Load,
      definition.States.PerOrganizationBatch?.ItemProcessor?.States.ForecastBatch,
    ];
    for (const task of tasks) {
      expect(task?.Resource).toBe(functionArn);
      expect(task?.Retry).toEqual(
        expect.arrayContaining([expect.objectContaining({ ErrorEquals: ['States.ALL'], MaxAttempts: 3 })]),
      );
    }
  });

  it('lets the API start runs and read only on-demand executions', () => {
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          POWERTOOLS_SERVICE_NAME: 'api',
          FORECAST_STATE_MACHINE_ARN: { Ref: idAt(s.template, 'Forecast/StateMachine') },
        }),
      },
    });
    const api = functionPermissions(s.template, 'Api/Api').filter((p) => p.startsWith('states:'));
    expect(api).toEqual([
      expect.stringMatching(
        /^states:DescribeExecution arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:<SpendguardForecastStateMachine\w+\.Name>:od-\*$/,
      ),
      `states:StartExecution <${idAt(s.template, 'Forecast/StateMachine')}>`,
    ]);
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
