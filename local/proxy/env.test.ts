import { upstreamEnvName, upstreamsFromEnv } from './env';

it('SPENDGUARD_UPSTREAM_BEDROCK overrides the Bedrock upstream (every region, mantle too)', () => {
  expect(upstreamEnvName('bedrock')).toBe('SPENDGUARD_UPSTREAM_BEDROCK');
  expect(
    upstreamsFromEnv({
      SPENDGUARD_UPSTREAM_BEDROCK: ' http://127.0.0.1:9100 ',
      SPENDGUARD_UPSTREAM_NOPE: 'x',
    }),
  ).toEqual({
    bedrock: 'http://127.0.0.1:9100',
  });
});
