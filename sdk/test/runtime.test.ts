/**
 * Runtime feature detection: ids, exit hooks (browser pagehide / visibilitychange with keepalive
 * requests), timers that never keep a process alive.
 */
import { shutdown, wrapFetch } from '../src';
import type { Client } from '../src/client';
import { onRuntimeExit, unrefTimer, uuidV4 } from '../src/runtime';
import { sdkState } from '../src/tracked-fetch';
import { TEST_API_KEY } from './helpers/fake-ingest';
import { chatInit, inProcessProvider, OPENAI_URL } from './helpers/in-process';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => shutdown({ timeoutMs: 100 }));

describe('uuidV4', () => {
  it('is a UUID v4 with crypto.randomUUID, with getRandomValues only, and with neither', () => {
    expect(uuidV4()).toMatch(UUID_V4);
    const original = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
    try {
      Object.defineProperty(globalThis, 'crypto', {
        value: { getRandomValues: (a: Uint8Array) => a.fill(0xff) },
        configurable: true,
      });
      expect(uuidV4()).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
      Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });
      const ids = new Set(Array.from({ length: 100 }, () => uuidV4()));
      expect(ids.size).toBe(100);
      for (const id of ids) expect(id).toMatch(UUID_V4);
    } finally {
      if (original) Object.defineProperty(globalThis, 'crypto', original);
    }
  });
});

describe('exit hooks', () => {
  it('in a browser, flushes on pagehide and when the page becomes hidden', () => {
    const listeners = new Map<string, () => void>();
    const doc = {
      visibilityState: 'visible',
      addEventListener: (type: string, fn: () => void) => listeners.set(`doc:${type}`, fn),
      removeEventListener: (type: string) => listeners.delete(`doc:${type}`),
    };
    const g = globalThis as unknown as Record<string, unknown>;
    const saved = { document: g.document, add: g.addEventListener, remove: g.removeEventListener };
    g.document = doc;
    g.addEventListener = (type: string, fn: () => void) => listeners.set(`win:${type}`, fn);
    g.removeEventListener = (type: string) => listeners.delete(`win:${type}`);
    try {
      const reasons: string[] = [];
      const remove = onRuntimeExit((reason) => reasons.push(reason));
      listeners.get('win:pagehide')?.();
      listeners.get('doc:visibilitychange')?.(); // still visible: nothing
      doc.visibilityState = 'hidden';
      listeners.get('doc:visibilitychange')?.();
      expect(reasons).toEqual(['pagehide', 'pagehide']);
      remove();
      expect(listeners.size).toBe(0);
    } finally {
      g.document = saved.document;
      g.addEventListener = saved.add;
      g.removeEventListener = saved.remove;
    }
  });

  it('in Node.js, hooks beforeExit and removes the hook again', () => {
    const before = process.listenerCount('beforeExit');
    const remove = onRuntimeExit(() => undefined);
    expect(process.listenerCount('beforeExit')).toBe(before + 1);
    remove();
    expect(process.listenerCount('beforeExit')).toBe(before);
  });

  it('a page-exit flush sends its batch with keepalive', async () => {
    const seen: RequestInit[] = [];
    const real = globalThis.fetch;
    globalThis.fetch = ((url: string, init: RequestInit) => {
      if (url.endsWith('/v1/events')) seen.push(init); // not the budget lease taken at start
      return Promise.resolve(new Response('{}', { status: 202 }));
    }) as typeof fetch;
    let client: Client;
    try {
      const f = wrapFetch(inProcessProvider().fetch, {
        apiKey: TEST_API_KEY,
        endpoint: 'https://ingest.invalid',
        serverFlags: false,
      });
      client = [...sdkState().clients.values()][0] as Client;
      await (await f(OPENAI_URL, chatInit())).json();
      await client.settle();
    } finally {
      globalThis.fetch = real;
    }
    await expect(client.flushOnExit(true)).resolves.toMatchObject({ sent: 1 });
    expect((seen[0] as RequestInit & { keepalive?: boolean }).keepalive).toBe(true);
  });
});

describe('unrefTimer', () => {
  it('unrefs Node timers and ignores anything else', () => {
    const timer = setTimeout(() => undefined, 10_000);
    unrefTimer(timer);
    expect(timer.hasRef()).toBe(false);
    clearTimeout(timer);
    expect(() => unrefTimer(42)).not.toThrow();
    expect(() => unrefTimer(null)).not.toThrow();
  });
});
