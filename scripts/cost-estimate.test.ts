import * as fs from 'node:fs';
import * as path from 'node:path';
import { estimate, renderCostTable, UNIT_PRICES, WORKLOADS } from './cost-estimate';

const DEPLOY_DOC = path.join(__dirname, '..', 'docs', 'deploy.md');
const START =
  '<!-- cost-estimate:start (npm run cost-estimate; scripts/cost-estimate.test.ts keeps it equal) -->';
const END = '<!-- cost-estimate:end -->';

/** Table rows with cell padding and separator widths as Prettier leaves them ignored. */
const normalized = (table: string) =>
  table
    .trim()
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .map((cell) => cell.trim().replace(/^-+:$/, '---:').replace(/^-+$/, '---'))
        .join('|'),
    );

const total = (e: Record<string, number>) => Object.values(e).reduce((a, b) => a + b, 0);

describe('cost estimate', () => {
  it('is in docs/deploy.md exactly as the script prints it', () => {
    const doc = fs.readFileSync(DEPLOY_DOC, 'utf8');
    const from = doc.indexOf(START);
    const to = doc.indexOf(END);
    expect([from >= 0, to > from]).toEqual([true, true]);
    expect(normalized(doc.slice(from + START.length, to))).toEqual(normalized(renderCostTable()));
  });

  it('grows with traffic, and the relay is billed for the whole call', () => {
    const [small] = WORKLOADS;
    if (!small) throw new Error('no workload');
    const doubled = estimate({ ...small, proxyCallsPerMonth: small.proxyCallsPerMonth * 2 });
    expect(total(doubled)).toBeGreaterThan(total(estimate(small)));
    const longer = estimate({ ...small, averageCallSeconds: small.averageCallSeconds * 2 });
    // Relay cost = requests + GB-seconds: doubling the duration doubles only the GB-second part.
    const requests = small.proxyCallsPerMonth * UNIT_PRICES.lambdaRequest;
    expect(longer['Lambda (relay)'] - requests).toBeCloseTo(
      2 * (estimate(small)['Lambda (relay)'] - requests),
      6,
    );
  });

  it('charges a fixed floor with no traffic (the stream, alarms, dashboard, secrets, key) and WAF only when on', () => {
    const [small] = WORKLOADS;
    if (!small) throw new Error('no workload');
    const idle = estimate({
      ...small,
      proxyCallsPerMonth: 0,
      sdkEventsPerMonth: 0,
      apiReadsPerMonth: 0,
      apiWaf: false,
    });
    // 730 stream-hours × $0.04 = $29.20 of Kinesis.
    expect(idle.Kinesis).toBeCloseTo(29.2, 2);
    expect(idle['AWS WAF']).toBe(0);
    const noApiWaf = { ...small, apiWaf: false };
    expect(estimate({ ...noApiWaf, waf: true })['AWS WAF']).toBeCloseTo(
      5 + 1 + small.proxyCallsPerMonth * 0.6e-6,
      6,
    );
    // The API's ACL: $5 + three rules (rate rule, two managed groups) + every ingest request and API read.
    const apiRequests = small.sdkEventsPerMonth / small.eventsPerIngestRequest + small.apiReadsPerMonth;
    expect(estimate({ ...small, waf: false, apiWaf: true })['AWS WAF']).toBeCloseTo(
      5 + 3 + apiRequests * 0.6e-6,
      6,
    );
    expect(estimate({ ...small, apiWaf: true }).CloudFront).toBeGreaterThan(estimate(noApiWaf).CloudFront);
  });
});
