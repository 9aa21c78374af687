/**
 * The Lambda `Context` the local runtime passes as a handler's second argument. Handlers wrapped with
 * Middy and Powertools read it (function name, request id, remaining time), so they must receive a
 * complete one locally too.
 */
import { randomBytes, randomUUID } from 'node:crypto';

import type { Context } from 'aws-lambda';

import { LOCAL_REGION } from './clients';

/** Account id the stand-ins report in ARNs (dynalite and kinesalite default to zeros). */
export const LOCAL_ACCOUNT_ID = '000000000000';

/** Options of {@link createLambdaContext}. */
export interface LambdaContextOptions {
  /** Function name, as in AWS (e.g. `spendguard-ingest`). */
  readonly functionName: string;
  /**
   * Only reported by `getRemainingTimeInMillis()`; the local runtime does not kill slow handlers.
   * @default 30000
   */
  readonly timeoutMs?: number;
  /** @default 1024 */
  readonly memoryLimitInMB?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * A fresh context for one invocation: new `awsRequestId`, deadline = now + timeout.
 *
 * @example
 * const context = createLambdaContext({ functionName: 'spendguard-api', timeoutMs: 10_000 });
 * context.getRemainingTimeInMillis(); // ≈ 10000
 */
export function createLambdaContext(options: LambdaContextOptions): Context {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = now() + timeoutMs;
  const { functionName } = options;
  const day = new Date(now()).toISOString().slice(0, 10).replaceAll('-', '/');
  const unsupported = (name: string) => (): never => {
    // The callback-style completion methods were removed from the Node.js runtimes; handlers return promises.
    throw new Error(`context.${name}() is not supported; return a promise from the handler`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 1024),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}
