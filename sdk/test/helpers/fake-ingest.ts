/**
 * A local stand-in for the Spendguard API: records every `POST /v1/events` batch, answers
 * `GET /v1/health` and `GET /v1/budget`, and can be told to fail (status codes, Retry-After, hangs).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const TEST_API_KEY = 'abn_k3v9x0q2m7za_' + '6JpQ2wErTyUiOpAsDfGhJkLzXcVbNm1234567890Abc';

export interface IngestBatch {
  readonly headers: IncomingMessage['headers'];
  readonly raw: string;
  readonly body: { events: Array<Record<string, unknown>>; droppedEvents?: number };
  readonly at: number;
}

/** A scripted answer to the next POST /v1/events. */
export type IngestAnswer = { status: number; headers?: Record<string, string> } | 'hang' | 'reset';

export interface FakeIngest {
  readonly url: string;
  readonly batches: IngestBatch[];
  /** Every POST attempt, accepted or not. */
  readonly attempts: Array<{ at: number; status: number | 'hang' | 'reset' }>;
  /** Answers for the next POSTs, in order; afterwards 202. */
  readonly script: IngestAnswer[];
  /** Body of GET /v1/budget (status 200), or a status to answer instead. */
  budget: unknown;
  budgetStatus: number;
  budgetRequests: number;
  /** All events accepted so far. */
  events(): Array<Record<string, unknown>>;
  /** Resolves when at least `n` events were accepted (or rejects after `timeoutMs`). */
  waitForEvents(n: number, timeoutMs?: number): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

export async function startFakeIngest(): Promise<FakeIngest> {
  const batches: IngestBatch[] = [];
  const attempts: FakeIngest['attempts'] = [];
  const script: IngestAnswer[] = [];
  const waiters: Array<() => void> = [];
  const self = {
    budget: { status: 'ok', flag: null, spend: { todayUsd: 1, monthUsd: 2 } } as unknown,
    budgetStatus: 200,
    budgetRequests: 0,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/v1/health') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ status: 'ok', version: 'test', time: new Date().toISOString(), checks: {} }),
        );
        return;
      }
      if (req.method === 'GET' && path === '/v1/budget') {
        self.budgetRequests++;
        if (req.headers['service-api-key'] !== TEST_API_KEY) {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              error: { code: 'unauthorized', message: 'API key is unknown, malformed or revoked' },
            }),
          );
          return;
        }
        res.writeHead(self.budgetStatus, { 'content-type': 'application/json' });
        res.end(JSON.stringify(self.budget));
        return;
      }
      if (req.method === 'POST' && path === '/v1/events') {
        const answer = script.shift();
        if (answer === 'hang') {
          attempts.push({ at: Date.now(), status: 'hang' });
          return; // never answers
        }
        if (answer === 'reset') {
          attempts.push({ at: Date.now(), status: 'reset' });
          req.socket.destroy();
          return;
        }
        const status = answer?.status ?? 202;
        attempts.push({ at: Date.now(), status });
        if (status === 202) {
          batches.push({
            headers: req.headers,
            raw,
            body: JSON.parse(raw) as IngestBatch['body'],
            at: Date.now(),
          });
          waiters.splice(0).forEach((w) => w());
        }
        res.writeHead(status, { 'content-type': 'application/json', ...(answer?.headers ?? {}) });
        res.end(
          JSON.stringify(
            status === 202 ? { status: 'accepted', count: 1 } : { error: { code: 'x', message: 'scripted' } },
          ),
        );
        return;
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const events = (): Array<Record<string, unknown>> => batches.flatMap((b) => b.body.events);
  return {
    url,
    batches,
    attempts,
    script,
    get budget() {
      return self.budget;
    },
    set budget(v: unknown) {
      self.budget = v;
    },
    get budgetStatus() {
      return self.budgetStatus;
    },
    set budgetStatus(v: number) {
      self.budgetStatus = v;
    },
    get budgetRequests() {
      return self.budgetRequests;
    },
    events,
    waitForEvents(n, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${events().length} of ${n} events arrived`)),
          timeoutMs,
        );
        const check = (): void => {
          if (events().length >= n) {
            clearTimeout(timer);
            resolve(events());
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
