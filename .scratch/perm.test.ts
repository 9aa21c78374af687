import { functionPermissions, synthSpendguard } from '../lib/test-helpers';
it('prints', () => {
  const s = synthSpendguard();
  for (const f of ['Pipeline/Ingest','Pipeline/PricingConsumer','Pipeline/GuardrailConsumer','Api/Enforce','Api/Api','Edge/Relay','Forecast/Function','Prices/Refresh']) {
    console.log(f + '\n  ' + functionPermissions(s.template, f, { all: true }).join('\n  '));
  }
});
