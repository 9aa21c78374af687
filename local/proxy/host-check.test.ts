/**
 * The local proxy answers only loopback Host values (issue 15.8): a page whose DNS name was rebound to
 * 127.0.0.1 cannot spend through it, not even reach its health check.
 */
import http from 'node:http';
import { startProxyHarness, type ProxyHarness } from './test-support';

let h: ProxyHarness;
beforeAll(async () => {
  h = await startProxyHarness();
});
afterAll(() => h.close());

function call(path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: h.proxy.port,
        method: path === '/healthz' ? 'GET' : 'POST',
        path,
        headers: {
          host,
          'content-type': 'application/json',
          'service-api-key': h.apiKey,
          authorization: 'Bearer sk-test',
        },
        agent: false,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(path === '/healthz' ? undefined : JSON.stringify({ model: 'gpt-4o-mini', messages: [] }));
  });
}

describe('local proxy Host check', () => {
  it.each(['evil.example', 'rebind.127.0.0.1.nip.io', 'localhost'])(
    'refuses Host %s (with the port unless named) with 421 JSON, contacting nobody',
    async (name) => {
      const host = name === 'localhost' ? 'localhost' : `${name}:${h.proxy.port}`;
      for (const path of ['/openai/v1/chat/completions', '/healthz']) {
        const res = await call(path, host);
        expect(res.status).toBe(421);
        expect(JSON.parse(res.body)).toMatchObject({
          error: { type: 'invalid_request_error', code: 'misdirected_request' },
        });
      }
      await h.proxy.idle();
      expect(h.mock.requests()).toHaveLength(0);
      expect(h.sink.events()).toHaveLength(0);
    },
  );

  it.each(['127.0.0.1', 'localhost', '[::1]'])('serves Host %s with its port', async (name) => {
    const res = await call('/openai/v1/chat/completions', `${name}:${h.proxy.port}`);
    expect(res.status).toBe(200);
  });
});
