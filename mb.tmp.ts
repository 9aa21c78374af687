const body = JSON.stringify({ a: 'x'.repeat(800) });
function bench(name: string, fn: () => unknown, n = 20000) {
  for (let i = 0; i < 2000; i++) fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) fn();
  console.log(name, (((performance.now() - t) / n) * 1000).toFixed(2), 'µs');
}
bench('new Response', () => new Response(body, { headers: { 'content-type': 'application/json' } }));
bench('new Response + clone', () => new Response(body, { headers: { 'content-type': 'application/json' } }).clone());
bench('headers.get', (() => { const r = new Response(body, { headers: { 'content-type': 'application/json' } }); return () => r.headers.get('content-type'); })());
import { detectProvider } from './core/providers';
bench('detectProvider', () => detectProvider('https://api.openai.com/v1/chat/completions'));
import { inspectRequest } from './sdk/src/inspect';
const init = { method: 'POST', body };
bench('inspectRequest', () => inspectRequest(['https://api.openai.com/v1/chat/completions', init]));
bench('performance.now', () => performance.now());
bench('Date.now', () => Date.now());
