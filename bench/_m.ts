const m = new Map<string, number>(); const m2 = new Map<string, Map<string, number>>();
const ps = ['openai', 'anthropic', 'gemini', 'deepseek'], ms = ['gpt-4o-2024-08-06', 'claude-sonnet-4-20250514', 'models/gemini-2.5-pro', 'deepseek-chat'];
for (let i = 0; i < 4; i++) { m.set(`${ps[i]}\u0000${ms[i]}`, i); m2.set(ps[i]!, new Map([[ms[i]!, i]])); }
function run(n: number, f: (i: number) => number) { let s = 0; const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) s += f(i & 3); return [Number(process.hrtime.bigint() - t) / n, s]; }
for (let k = 0; k < 3; k++) { run(1e6, (i) => m.get(`${ps[i]}\u0000${ms[i]}`)!); run(1e6, (i) => m2.get(ps[i]!)!.get(ms[i]!)!); }
console.log('concat', run(5e6, (i) => m.get(`${ps[i]}\u0000${ms[i]}`)!)[0]);
console.log('concat+', run(5e6, (i) => m.get(ps[i]! + '\u0000' + ms[i]!)!)[0]);
console.log('2-level', run(5e6, (i) => m2.get(ps[i]!)!.get(ms[i]!)!)[0]);
