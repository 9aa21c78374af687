/**
 * `npm run bench -- governance`: what roles and the audit log cost on the local stack (issue 21). Times
 * the role tokens of `local.json` against the real handlers, and the same budget change with the audit
 * write skipped (the baseline before the audit log), in one process.
 */
import { startLocalStack, type LocalStack } from '../local/stack';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? 0;

type Call = (i: number) => Promise<{ ms: number; status: number }>;

async function measure(label: string, n: number, f: Call): Promise<void> {
  for (let i = 0; i < 10; i++) await f(i); // warm-up
  const xs: number[] = [];
  let status = 0;
  for (let i = 0; i < n; i++) {
    const r = await f(i);
    xs.push(r.ms);
    status = r.status;
  }
  console.log(
    `${label.padEnd(58)} n=${n} status=${status} p50=${pct(xs, 0.5).toFixed(2)} ms p95=${pct(xs, 0.95).toFixed(2)} ms`,
  );
}

function client(stack: LocalStack) {
  return async (token: string, method: string, path: string, body?: unknown) => {
    const t = performance.now();
    const res = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await res.text();
    return { ms: performance.now() - t, status: res.status };
  };
}

export default async function governanceBench(): Promise<void> {
  const stack = await startLocalStack({
    memory: true,
    apiPort: 0,
    proxyPort: 0,
    dashboardDir: '/nonexistent',
  });
  try {
    const call = client(stack);
    const { admin, member, viewer } = stack.idTokens;
    const budget: Call = (i) =>
      call(admin, 'PUT', '/v1/budget', { budget: { dailyLimitUsd: 10 + i, action: 'block' } });
    await measure('GET /v1/keys (viewer: role check)', 200, () => call(viewer, 'GET', '/v1/keys'));
    // Alternated, twice, so that warm-up and the machine's load do not favour one side.
    const audit = stack.services.audit;
    const record = audit.record.bind(audit);
    for (let round = 1; round <= 2; round++) {
      audit.record = record;
      await measure(`PUT /v1/budget (admin, with its audit entry) #${round}`, 200, budget);
      audit.record = async (_orgId, c) => ({ ...c, id: 'skipped', before: null, after: null });
      await measure(`PUT /v1/budget (admin, audit write skipped: baseline) #${round}`, 200, budget);
    }
    audit.record = record;
    await measure('PUT /v1/pricing/rates (member: 403, audited)', 200, () =>
      call(member, 'PUT', '/v1/pricing/rates', { multiplier: 0 }),
    );
    await measure('GET /v1/audit?limit=50 (member)', 200, () => call(member, 'GET', '/v1/audit?limit=50'));
    await measure('GET /v1/audit?limit=50&action=key.created (no match)', 100, () =>
      call(member, 'GET', '/v1/audit?limit=50&action=key.created'),
    );
  } finally {
    await stack.stop();
  }
}
