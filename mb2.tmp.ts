const body = new TextEncoder().encode(JSON.stringify({ a: 'x'.repeat(800) }));
function mk() { return new Response(new ReadableStream({ start(c) { c.enqueue(body); c.close(); } }), { headers: { 'content-type': 'application/json' } }); }
async function bench(name: string, fn: () => unknown, n = 20000) {
  for (let i = 0; i < 2000; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(name, (((performance.now() - t) / n) * 1000).toFixed(2), 'µs');
}
(async () => {
await bench('mk', () => mk());
await bench('mk+clone', () => mk().clone());
await bench('mk+body.tee', () => mk().body!.tee());
await bench('mk+newResponse(body)', () => { const r = mk(); return new Response(r.body, { status: r.status, statusText: r.statusText, headers: r.headers }); });
await bench('mk+newResponse(tapped)', () => { const r = mk(); const src = r.body!; const s = new ReadableStream({ pull(c) { c.close(); }, cancel() { return src.cancel(); } }, { highWaterMark: 0 }); return new Response(s, { status: r.status, statusText: r.statusText, headers: r.headers }); });
await bench('mk+text', () => mk().text());
await bench('mk+clone+2text', async () => { const r = mk(); const c = r.clone(); await Promise.all([r.text(), c.text()]); });
})();
