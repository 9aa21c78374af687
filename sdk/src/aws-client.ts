/**
 * Spendguard for AWS SDK v3 clients (`instrumentAwsClient`): the AWS SDK does not use fetch (it speaks
 * HTTP/2 through `node:http2`), so its Bedrock calls are seen through the client's middleware stack
 * instead. One `initialize`-step middleware, ahead of the SDK's retry middleware:
 *
 * - before the call: the same hot path as a tracked fetch (server flags, budget lease, local budget).
 *   A refusal rejects with a `ServiceQuotaExceededException`-named error (HTTP 400 in `$metadata`): the
 *   AWS SDK retries only throttling and transient errors, and this one is thrown before its retry step,
 *   so the provider is never contacted and nothing is retried;
 * - after: the DESERIALIZED output is read (Converse's `usage`, InvokeModel's model body); streams are
 *   read by wrapping the event iterator (`stream` of ConverseStream, `body` of
 *   InvokeModelWithResponseStream): each event is counted as it passes, none is held back, and the call
 *   is recorded when the application finishes (or abandons) the stream. No codec: the client decodes.
 *
 * The request is never changed: the SigV4 signature (computed later, in the `finalizeRequest` step) and
 * every header stay the SDK's own.
 */
import { getProvider } from '../../core/providers/catalog';
import type { ProviderEntry } from '../../core/providers/types';
import { BedrockEventTally, bedrockUsageFromHeaders } from '../../core/usage/bedrock';
import type { UsageContext, UsageResult } from '../../core/usage/types';
import type { Binding, Call, Client } from './client';

/** Bedrock Runtime operations Spendguard records: the path segment and whether the output streams. */
const OPERATIONS: Readonly<Record<string, { readonly op: string; readonly streamKey?: string }>> = {
  ConverseCommand: { op: 'converse' },
  ConverseStreamCommand: { op: 'converse-stream', streamKey: 'stream' },
  InvokeModelCommand: { op: 'invoke' },
  InvokeModelWithResponseStreamCommand: { op: 'invoke-with-response-stream', streamKey: 'body' },
};

/** The shape of an AWS SDK v3 client this module relies on (kept structural: no AWS types in the SDK). */
export interface AwsClientLike {
  readonly config: { readonly serviceId?: unknown; readonly region?: unknown };
  readonly middlewareStack: {
    add(middleware: unknown, options: { step: string; name: string; priority?: string }): void;
  };
}

/** Where a call is recorded, resolved per call (so a later `initServiceAuto` takes effect). */
export type AwsBindingResolver = () => { client: Client; binding: Binding } | undefined;

/** Marks instrumented clients (a second call adds nothing). */
export const AWS_MIDDLEWARE_NAME = 'spendguardBedrock';
const INSTRUMENTED = Symbol.for('@service/sdk.aws-instrumented');

/** Whether `client` is an AWS SDK v3 Bedrock Runtime client (any other client is left untouched). */
export function isBedrockRuntimeClient(client: unknown): client is AwsClientLike {
  const c = client as Partial<AwsClientLike> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    c.config?.serviceId === 'Bedrock Runtime' &&
    typeof c.middlewareStack?.add === 'function'
  );
}

/** The error a Spendguard refusal rejects with: named and shaped so the AWS SDK never retries it. */
export class SpendguardRefusalError extends Error {
  override readonly name = 'ServiceQuotaExceededException';
  readonly $fault = 'client';
  readonly $metadata: { readonly httpStatusCode: number; readonly attempts: number };
  /** Spendguard's code (`key_suspended`, `hard_cap`, `client_budget`, …) and when to try again. */
  readonly spendguard: { readonly code: string | undefined; readonly retryAfterSeconds: number | undefined };

  constructor(message: string, code: string | undefined, retryAfterSeconds: number | undefined) {
    super(message);
    this.$metadata = { httpStatusCode: 400, attempts: 0 };
    this.spendguard = { code, retryAfterSeconds };
  }
}

async function refusal(response: Response): Promise<SpendguardRefusalError> {
  let message = 'Spendguard refused the call; the provider was not called.';
  let code: string | undefined;
  try {
    const body = (await response.json()) as { error?: { message?: unknown; code?: unknown } };
    if (typeof body.error?.message === 'string') message = body.error.message;
    if (typeof body.error?.code === 'string') code = body.error.code;
  } catch {
    // keep the generic message
  }
  const retry = Number(response.headers.get('retry-after'));
  return new SpendguardRefusalError(message, code, Number.isFinite(retry) ? retry : undefined);
}

/** A response header, whatever the case the transport kept. */
function headerOf(headers: Record<string, string>, name: string): string | undefined {
  const direct = headers[name];
  if (direct !== undefined) return direct;
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

/** Binary members (images, documents) are represented by their size: the fingerprint and estimates read text. */
function jsonReplacer(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? { bytes: value.byteLength } : value;
}

/** The request body as bedrock-runtime receives it (Converse: the input without `modelId`; InvokeModel: `body`). */
function requestBodyOf(input: Record<string, unknown>, op: string): string | Uint8Array | undefined {
  if (op === 'invoke' || op === 'invoke-with-response-stream') {
    const body = input.body;
    return typeof body === 'string' || body instanceof Uint8Array ? body : undefined;
  }
  const { modelId: _modelId, ...rest } = input;
  return JSON.stringify(rest, jsonReplacer);
}

/**
 * The stream, passed through event by event: each event is counted, then handed on at once.
 * `done` runs once, when the stream ends, fails or is abandoned.
 */
async function* tapEvents(
  source: AsyncIterable<Record<string, unknown>>,
  tally: BedrockEventTally,
  done: () => void,
): AsyncGenerator<Record<string, unknown>> {
  try {
    for await (const event of source) {
      try {
        for (const key in event) if (event[key] !== undefined) tally.event(key, event[key]);
      } catch {
        // never disturb the application's stream
      }
      yield event;
    }
  } finally {
    done();
  }
}

function usageOfOutput(
  entry: ProviderEntry,
  output: Record<string, unknown>,
  op: string,
  ctx: UsageContext,
): UsageResult {
  let body: unknown = output;
  if (op === 'invoke') {
    const raw = output.body;
    const text =
      raw instanceof Uint8Array ? new TextDecoder().decode(raw) : typeof raw === 'string' ? raw : '';
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      return { ok: false, reason: 'InvokeModel body is not JSON' };
    }
  }
  const result = entry.usage.fromJson(body, ctx);
  // InvokeModel's tier is a response header, deserialized into `serviceTier` beside the model's own body.
  const tier = output.serviceTier;
  if (result.ok && result.usage.serviceTier === null && typeof tier === 'string' && tier.length > 0) {
    return { ok: true, usage: { ...result.usage, serviceTier: tier } };
  }
  return result;
}

type Handler = (args: { input: Record<string, unknown> }) => Promise<{
  output: Record<string, unknown> & { $metadata?: { httpStatusCode?: number } };
  response?: unknown;
}>;

/**
 * The middleware for one client. `region` is the client's region provider (read once, cached).
 */
export function bedrockMiddleware(resolve: AwsBindingResolver, region: unknown) {
  let regionName: string | undefined;
  const regionOf = async (): Promise<string> => {
    if (regionName !== undefined) return regionName;
    try {
      const r: unknown = typeof region === 'function' ? await (region as () => unknown)() : region;
      regionName = typeof r === 'string' && r.length > 0 ? r : 'us-east-1';
    } catch {
      regionName = 'us-east-1';
    }
    return regionName;
  };
  return (next: Handler, context: { commandName?: string }): Handler =>
    async (args) => {
      const spec = context.commandName === undefined ? undefined : OPERATIONS[context.commandName];
      let call: Call | undefined;
      let ctx: UsageContext | undefined;
      let entry: ProviderEntry | undefined;
      if (spec !== undefined) {
        let refused: Response | undefined;
        try {
          const target = resolve();
          entry = getProvider('bedrock');
          if (target !== undefined && entry !== undefined) {
            const input = args.input;
            const path = `/model/${encodeURIComponent(String(input.modelId ?? ''))}/${spec.op}`;
            const url = `https://bedrock-runtime.${await regionOf()}.amazonaws.com${path}`;
            const body = requestBodyOf(input, spec.op);
            ctx = { url, requestBody: body };
            // A hard cap may make the call wait for a lease answer first (its worst case is reserved).
            const begun = await target.client.beginCall(entry, url, path, body, target.binding);
            if (begun instanceof Response) refused = begun;
            else call = begun;
          }
        } catch {
          call = undefined; // an SDK fault never stops the application's call
        }
        if (refused !== undefined) throw await refusal(refused);
      }
      let result: Awaited<ReturnType<Handler>>;
      try {
        result = await next(args);
      } catch (err) {
        call?.onFailure(err);
        throw err;
      }
      if (call === undefined || spec === undefined || ctx === undefined || entry === undefined) return result;
      const handle = call;
      try {
        const output = result.output;
        const status = output.$metadata?.httpStatusCode ?? 200;
        if (spec.streamKey !== undefined) {
          const source = output[spec.streamKey] as AsyncIterable<Record<string, unknown>> | undefined;
          if (source !== undefined && typeof source[Symbol.asyncIterator] === 'function') {
            const tally = new BedrockEventTally(ctx);
            if (typeof output.serviceTier === 'string') tally.setServiceTier(output.serviceTier);
            output[spec.streamKey] = tapEvents(source, tally, () =>
              handle.onUsage(status, () => tally.end(), true),
            );
          } else handle.onUsage(status, null, true);
        } else {
          const usageCtx = ctx;
          const e = entry;
          const headers = (result.response as { headers?: Record<string, string> } | undefined)?.headers;
          handle.onUsage(
            status,
            () => {
              const read = usageOfOutput(e, output, spec.op, usageCtx);
              if (read.ok || headers === undefined) return read;
              // A model body without usage: InvokeModel's x-amzn-bedrock-*-token-count headers.
              const fromHeaders = bedrockUsageFromHeaders((name) => headerOf(headers, name), usageCtx);
              return fromHeaders === undefined ? read : { ok: true, usage: fromHeaders };
            },
            false,
          );
        }
      } catch {
        // the application gets its output whatever happens here
      }
      return result;
    };
}

/**
 * Adds the middleware to a Bedrock Runtime client once; any other value is returned untouched.
 */
export function addBedrockMiddleware<T>(client: T, resolve: AwsBindingResolver): T {
  if (!isBedrockRuntimeClient(client)) return client;
  const marked = client as unknown as Record<symbol, boolean>;
  if (marked[INSTRUMENTED] === true) return client;
  client.middlewareStack.add(bedrockMiddleware(resolve, client.config.region), {
    step: 'initialize',
    name: AWS_MIDDLEWARE_NAME,
    priority: 'high',
  });
  try {
    Object.defineProperty(client, INSTRUMENTED, { value: true, enumerable: false });
  } catch {
    // a frozen client: a second call would add a second middleware, which the stack refuses by name
  }
  return client;
}
