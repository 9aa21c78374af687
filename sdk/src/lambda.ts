/**
 * Flushing before an AWS Lambda invocation ends. Lambda freezes the execution environment as soon as
 * the handler returns: timers do not fire while frozen and `beforeExit` never comes, so buffered events
 * would wait for the next invocation (or be lost when the environment is recycled).
 *
 * - `withSpendguard(handler)`: a plain wrapper that awaits a flush after the handler settles;
 * - `spendguardMiddleware()`: the same for middy, as `{ after, onError }` hooks (middy is not a
 *   dependency: the object is structurally a middy middleware).
 *
 * The flush is bounded by the invocation's remaining time (less a safety margin) and never fails the
 * invocation. At the same time the budget lease reports the invocation's spend, and no lease request is
 * left in flight (a freeze would strand it); the slice itself is kept for the next warm invocation, so
 * its first call has a reservation to draw on, and is renewed or lapses at its expiry (docs/sdk.md).
 */
import { flush, reportLeases } from './api';

/** Options of the Lambda helpers. */
export interface LambdaFlushOptions {
  /** Longest time spent flushing per invocation, in milliseconds. @default 2000 */
  flushTimeoutMs?: number;
  /** Time left untouched before the Lambda deadline, in milliseconds. @default 500 */
  safetyMarginMs?: number;
}

interface ContextLike {
  getRemainingTimeInMillis?: () => number;
}

function budgetFor(context: unknown, options: LambdaFlushOptions | undefined): number {
  const max =
    typeof options?.flushTimeoutMs === 'number' && options.flushTimeoutMs >= 0
      ? options.flushTimeoutMs
      : 2000;
  const margin =
    typeof options?.safetyMarginMs === 'number' && options.safetyMarginMs >= 0 ? options.safetyMarginMs : 500;
  try {
    const remaining = (context as ContextLike | undefined)?.getRemainingTimeInMillis?.();
    if (typeof remaining === 'number' && Number.isFinite(remaining))
      return Math.max(0, Math.min(max, remaining - margin));
  } catch {
    // not a Lambda context
  }
  return max;
}

/** Flushes and reports the budget lease's spend (in parallel), within the invocation's time. */
async function flushFor(context: unknown, options: LambdaFlushOptions | undefined): Promise<void> {
  try {
    const timeoutMs = budgetFor(context, options);
    await Promise.all([flush({ timeoutMs }), reportLeases(timeoutMs)]);
  } catch {
    // never fails the invocation
  }
}

/**
 * Wraps a Lambda handler (async or returning a value) so that buffered events are flushed before the
 * invocation ends. The handler's result or error is passed through unchanged.
 *
 * @example
 * export const handler = withSpendguard(async (event) => {
 *   const reply = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages });
 *   return { statusCode: 200, body: reply.choices[0].message.content };
 * });
 */
export function withSpendguard<E, C, R>(
  handler: (event: E, context: C) => R | Promise<R>,
  options?: LambdaFlushOptions,
): (event: E, context: C) => Promise<R> {
  return async (event: E, context: C): Promise<R> => {
    try {
      return await handler(event, context);
    } finally {
      await flushFor(context, options);
    }
  };
}

/** A middy request (the part these hooks read). */
export interface MiddyRequestLike {
  context?: unknown;
}

/** A middy middleware object. */
export interface SpendguardMiddleware {
  after: (request: MiddyRequestLike) => Promise<void>;
  onError: (request: MiddyRequestLike) => Promise<void>;
}

/**
 * A middy middleware that flushes after the handler (and after an error, leaving the error to the
 * other middlewares: it returns nothing).
 *
 * @example
 * export const handler = middy(baseHandler).use(spendguardMiddleware());
 */
export function spendguardMiddleware(options?: LambdaFlushOptions): SpendguardMiddleware {
  return {
    after: (request) => flushFor(request?.context, options),
    onError: (request) => flushFor(request?.context, options),
  };
}
