import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { lambdaReconciliationInvoker, ReconciliationInvokeError } from './reconciliation-invoker';

const lambda = mockClient(LambdaClient);
beforeEach(() => lambda.reset());

describe('lambdaReconciliationInvoker', () => {
  it('invokes the reconciliation function for the one organization and waits for its answer', async () => {
    lambda.on(InvokeCommand).resolves({
      StatusCode: 200,
      Payload: new TextEncoder().encode('{"orgId":"org_a","errors":0}') as never,
    });
    const run = lambdaReconciliationInvoker(new LambdaClient({}), 'spendguard-reconciliation');
    expect(await run('org_a')).toEqual({ orgId: 'org_a', errors: 0 });
    const input = lambda.commandCalls(InvokeCommand)[0]!.args[0].input;
    expect(input.FunctionName).toBe('spendguard-reconciliation');
    expect(input.InvocationType).toBe('RequestResponse');
    expect(JSON.parse(new TextDecoder().decode(input.Payload as Uint8Array))).toEqual({ orgId: 'org_a' });
  });

  it('turns a function error into an error (the route answers 500, nothing of it leaks)', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled' });
    const run = lambdaReconciliationInvoker(new LambdaClient({}), 'f');
    await expect(run('org_a')).rejects.toThrow(ReconciliationInvokeError);
  });
});
