import { wrapFetch } from './sdk/src';
import { sdkState } from './sdk/src/tracked-fetch';
process.on('beforeExit', () => console.log('beforeExit'));
const jsonFetch = (): Promise<Response> => Promise.resolve(new Response('{"model":"gpt-4o-mini","usage":{"prompt_tokens":1,"completion_tokens":2}}', { headers: { 'content-type': 'application/json' } }));
(async () => {
  const w = wrapFetch(jsonFetch as typeof fetch, { apiKey: 'abn_bench', endpoint: 'http://127.0.0.1:9', serverFlags: false, flushIntervalMs: 3_600_000, bufferCapacity: 100_000 });
  for (let i = 0; i < 3000; i++) {
    const a = await jsonFetch(); await a.text();
    const r = await w('https://api.openai.com/v1/chat/completions', { method: 'POST', body: '{"model":"gpt-4o-mini","messages":[]}' });
    await r.text();
    const c = [...sdkState().clients.values()][0]!;
    if (i > 40) console.log(i, 'pending', (c as any).pending.size, c.stats().buffered, c.stats().sent);
    await c.settle();
  }
  console.log('loop done');
})();
