import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { LedgerExport } from '../ledger-export';
import { otelSettingsFromEnvironment } from './otel-settings';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The OpenTelemetry export the environment asks for (the standard OTEL_* variables), or undefined when
 * no OTLP endpoint is set. The SDK is required only then, so a function without export never loads it
 * (cold start). Settings problems are reported once through `warn`.
 */
export function ledgerExportFromEnvironment(
  env: Env,
  options: { serviceName: string; warn: (message: string, error?: unknown) => void },
): LedgerExport | undefined {
  const settings = otelSettingsFromEnvironment(env);
  for (const w of settings.warnings) options.warn(w);
  if (!settings.traces && !settings.metrics) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose: see above
  const otel = require('./otel-ledger-export') as typeof import('./otel-ledger-export');
  return (
    otel.createOtelLedgerExport(settings, {
      serviceName: options.serviceName,
      // The function's own role (Lambda's environment credentials), refreshed by the provider chain.
      signing: (region) => ({ region, credentials: defaultProvider() }),
      onError: options.warn,
    }) ?? undefined
  );
}
