/** A fake `fetch` for component tests: routes like `GET /v1/budget` answer JSON; every call is recorded. */
import { vi } from 'vitest';

export interface RecordedCall {
  method: string;
  url: URL;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

export interface Reply {
  status?: number;
  body?: unknown;
  /** Resolve only when this promise does (to observe loading states). */
  wait?: Promise<unknown>;
}

type Handler = Reply | ((call: RecordedCall) => Reply);

export const API_URL = 'http://api.test';

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function mockApi(routes: Record<string, Handler>) {
  const calls: RecordedCall[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      'http://dashboard.test/',
    );
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    const call: RecordedCall = {
      method,
      url,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: typeof init.body === 'string' ? parseBody(init.body) : undefined,
    };
    calls.push(call);
    const handler = routes[`${method} ${url.pathname}`];
    const reply: Reply =
      typeof handler === 'function'
        ? handler(call)
        : (handler ?? {
            status: 404,
            body: { error: { code: 'not_found', message: `no route ${method} ${url.pathname}` } },
          });
    if (reply.wait) await reply.wait;
    const status = reply.status ?? 200;
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    fetchMock,
    /** Calls to one route (`GET /v1/ledger`). */
    callsTo: (route: string) => calls.filter((c) => `${c.method} ${c.path}` === route),
  };
}

export function apiError(
  status: number,
  code: string,
  message: string,
  problems?: { path: string; message: string }[],
): Reply {
  return { status, body: { error: { code, message, ...(problems ? { problems } : {}) } } };
}

/** A promise plus its resolve, to hold a reply back. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
