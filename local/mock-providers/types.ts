/** What one fake endpoint answers; the server turns it into bytes (compressed, delayed) on the wire. */
export type MockReply =
  | {
      readonly kind: 'json';
      readonly status: number;
      readonly body: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'sse';
      /** Complete SSE blocks, each ending with a blank line; written one by one with the chunk delay. */
      readonly frames: readonly string[];
      readonly headers?: Readonly<Record<string, string>>;
    };

/** What a format module receives about the request. */
export interface MockCall {
  /** Parsed JSON body (undefined when the body is not JSON). */
  readonly body: Record<string, unknown> | undefined;
  /** Stable id for this request body: the same request gets the same ids, so replies are byte-identical. */
  readonly id: string;
  /** `x-mock-chunks` request header, if any. */
  readonly chunks: string | undefined;
}

/** Provider formats the fake server speaks. */
export type MockProviderName = 'openai' | 'anthropic' | 'openrouter';

/** A fixed `created` timestamp keeps replies byte-identical between calls. */
export const MOCK_CREATED = 1_763_000_000;

/** One SSE block: optional `event:` line and a `data:` line. */
export function sseFrame(data: unknown, event?: string): string {
  const json = typeof data === 'string' ? data : JSON.stringify(data);
  return event === undefined ? `data: ${json}\n\n` : `event: ${event}\ndata: ${json}\n\n`;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): MockReply {
  return { kind: 'json', status, body: JSON.stringify(body), ...(headers ? { headers } : {}) };
}

/** The `model` of the request, else a default. */
export function modelOf(call: MockCall, fallback: string): string {
  const m = call.body?.model;
  return typeof m === 'string' && m.length > 0 ? m : fallback;
}
