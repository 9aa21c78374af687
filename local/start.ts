/**
 * `npm start`: the whole product on one machine. Flags (and environment variables):
 *   --data-dir DIR        (SPENDGUARD_DATA_DIR, default .spendguard)   where state persists
 *   --memory              (SPENDGUARD_MEMORY=1)                        keep nothing on disk
 *   --port N              (SPENDGUARD_API_PORT, default 8787)          API and dashboard
 *   --proxy-port N        (SPENDGUARD_PROXY_PORT, default 8788)        proxy
 *   --mock-providers      (SPENDGUARD_MOCK_PROVIDERS=1)                built-in fake providers
 *   --notify-webhook URL  (SPENDGUARD_NOTIFY_WEBHOOK)                  soft-cap warnings and trips
 *   --relay-concurrency N (SPENDGUARD_RELAY_CONCURRENCY, default 100)  relay containers (Lambda's reserved concurrency)
 *   SPENDGUARD_UPSTREAM_OPENAI / _ANTHROPIC / _OPENROUTER / …          proxy upstream base URLs
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dashboardIsBuilt, ensureDashboardBuilt } from './dashboard-build';
import { startLocalStack } from './stack';

process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

function relayConcurrency(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new Error(`invalid relay concurrency: ${value}`);
  return n;
}

function port(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`invalid port: ${value}`);
  return n;
}

/**
 * Builds `dashboard/dist` when it is missing or stale (`npm install` normally has), so that the URL the
 * banner prints serves the dashboard. A failed build leaves the API and the proxy running without it.
 */
function dashboard(out: NodeJS.WritableStream): void {
  const root = resolve(__dirname, '..');
  try {
    if (!dashboardIsBuilt(root)) out.write('  … building the dashboard (once; about 25 s)\n');
    ensureDashboardBuilt(root);
  } catch (err) {
    out.write(
      `  ! dashboard not built (${err instanceof Error ? err.message : String(err)}): API and proxy only\n`,
    );
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      memory: { type: 'boolean' },
      port: { type: 'string' },
      'proxy-port': { type: 'string' },
      'mock-providers': { type: 'boolean' },
      'notify-webhook': { type: 'string' },
      'relay-concurrency': { type: 'string' },
    },
  });
  const env = process.env;
  const upstreams: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const m = /^SPENDGUARD_UPSTREAM_([A-Z0-9_]+)$/.exec(name);
    if (m?.[1] && value) upstreams[m[1].toLowerCase()] = value;
  }
  const started = Date.now();
  dashboard(process.stdout);
  const dataDir = values['data-dir'] ?? env.SPENDGUARD_DATA_DIR ?? '.spendguard';
  const memory = values.memory ?? env.SPENDGUARD_MEMORY === '1';
  // With --memory nothing is written, local.json included: the token is printed whole instead.
  const infoFile = memory ? null : join(dataDir, 'local.json');
  const stack = await startLocalStack({
    dataDir,
    memory,
    apiPort: port(values.port ?? env.SPENDGUARD_API_PORT, 8787),
    proxyPort: port(values['proxy-port'] ?? env.SPENDGUARD_PROXY_PORT, 8788),
    mockProviders: values['mock-providers'] ?? env.SPENDGUARD_MOCK_PROVIDERS === '1',
    notifyWebhookUrl: values['notify-webhook'] ?? env.SPENDGUARD_NOTIFY_WEBHOOK,
    upstreams,
    relayConcurrency: relayConcurrency(values['relay-concurrency'] ?? env.SPENDGUARD_RELAY_CONCURRENCY),
    onStatus: (line) => process.stdout.write(`  … ${line}\n`),
  });
  const lines = [
    '',
    `Spendguard is running (${Date.now() - started} ms)`,
    `  API        ${stack.apiUrl}`,
    `  Proxy      ${stack.proxyUrl}   (e.g. ${stack.proxyUrl}/openai/v1 with header Service-API-Key)`,
    `  Dashboard  ${stack.dashboardUrl}`,
    `  Org        ${stack.orgId}`,
    `  API key    ${stack.apiKey}`,
    infoFile === null
      ? `  ID token   ${stack.idToken}   (admin)`
      : `  ID token   ${stack.idToken.slice(0, 24)}… (admin; full token in ${infoFile})`,
    ...(infoFile === null
      ? [`  member     ${stack.idTokens.member}`, `  viewer     ${stack.idTokens.viewer}`]
      : [
          `  Roles      admin, member and viewer tokens in ${infoFile} as idTokens.<role>; e.g.`,
          `             curl -H "Authorization: Bearer $(node -p 'require("${resolve(infoFile)}").idTokens.member')" ${stack.apiUrl}/v1/keys`,
        ]),
    ...(stack.mockProviderUrls
      ? [
          `  Mock providers${infoFile === null ? '' : ' (also in local.json as mockProviderUrls)'}:`,
          ...Object.entries(stack.mockProviderUrls).map(([name, url]) => `    ${name.padEnd(10)} ${url}`),
        ]
      : []),
    '',
    'Ctrl-C stops it; everything acknowledged is processed before exit.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: draining the consumers…\n`);
    stack
      .stop()
      .then(() => {
        process.stdout.write('stopped cleanly\n');
        process.exit(0);
      })
      .catch((err: unknown) => {
        process.stderr.write(`stop failed: ${String(err)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  const inUse = (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
  const hint = inUse
    ? ' (another program listens there: stop it, or start with --port N and --proxy-port N)'
    : '';
  process.stderr.write(
    `Spendguard failed to start: ${err instanceof Error ? err.message : String(err)}${hint}\n`,
  );
  process.exit(1);
});
