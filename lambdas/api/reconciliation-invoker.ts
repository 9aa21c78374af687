import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';

/** Thrown when the reconciliation function failed (the API answers its generic 500, nothing leaks). */
export class ReconciliationInvokeError extends Error {
  override readonly name = 'ReconciliationInvokeError';
}

/**
 * POST /v1/reconciliation/run in AWS: invokes the reconciliation function for one organization and
 * waits for it (`RequestResponse`), so the API function never holds the permission to read the
 * organizations' admin credentials (issue 21). Locally the same seam (`ApiDeps.runReconciliation`)
 * calls the function's runner in-process.
 */
export function lambdaReconciliationInvoker(client: LambdaClient, functionName: string) {
  return async (orgId: string): Promise<unknown> => {
    const out = await client.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'RequestResponse',
        Payload: new TextEncoder().encode(JSON.stringify({ orgId })),
      }),
    );
    if (out.FunctionError) throw new ReconciliationInvokeError(`reconciliation failed: ${out.FunctionError}`);
    const text = out.Payload ? new TextDecoder().decode(out.Payload) : 'null';
    return JSON.parse(text) as unknown;
  };
}
