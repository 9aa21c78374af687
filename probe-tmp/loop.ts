import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
const cfg = JSON.parse(readFileSync('/tmp/me-data/local.json', 'utf8'));
const key = process.argv[2] ?? cfg.apiKey;
const client = new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:4441/openai/v1', defaultHeaders: { 'Service-API-Key': key }, maxRetries: 0 });
(async () => {
  const tag = Math.random().toString(36).slice(2);
  const out: string[] = [];
  for (let i = 1; i <= 10; i++) {
    const t0 = Date.now();
    try {
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `loop ${tag}` }] }, process.argv[3] ? { headers: { 'x-spendguard-session': `s-${i}-${tag}` } } : {});
      out.push(`${i}:200(${Date.now() - t0}ms)`);
    } catch (e: any) { out.push(`${i}:${e.status}`); }
  }
  console.log(out.join(' '));
})();
