import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getProvider } from '../../core/providers';
import { bedrockStreamFixture } from '../../core/usage/fixtures/bedrock/encode';
import { bedrockUsageFromHeaders } from '../../core/usage/bedrock';
import { UsageTap } from './usage-tap';

const bedrock = getProvider('bedrock')!;
const fixture = (name: string) => readFileSync(join(__dirname, '../../core/usage/fixtures/bedrock', name));
const URL_BASE = 'https://bedrock-runtime.us-east-1.amazonaws.com/model/';

describe('the relay tap on Bedrock responses', () => {
  it('InvokeModel: the tier of the x-amzn-bedrock-service-tier header prices the call', async () => {
    const tap = new UsageTap(200, 'application/json', undefined, {
      provider: bedrock,
      url: `${URL_BASE}${encodeURIComponent('us.amazon.nova-pro-v1:0')}/invoke`,
      requestBody: Buffer.from('{"messages":[]}'),
      serviceTier: 'flex',
    });
    tap.push(
      Buffer.from(
        JSON.stringify({ output: {}, usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 } }),
      ),
    );
    const { usage } = await tap.finish();
    expect(usage.ok && usage.usage).toMatchObject({ inputTokens: 10, serviceTier: 'flex' });
  });

  it('a model body without usage: the x-amzn-bedrock-*-token-count headers (Anthropic: cache tokens added)', async () => {
    const url = `${URL_BASE}${encodeURIComponent('us.anthropic.claude-haiku-4-5-20251001-v1:0')}/invoke`;
    const headers: Record<string, string> = {
      'x-amzn-bedrock-input-token-count': '12',
      'x-amzn-bedrock-output-token-count': '30',
      'x-amzn-bedrock-cache-read-input-token-count': '2000',
    };
    const tap = new UsageTap(200, 'application/json', undefined, {
      provider: bedrock,
      url,
      requestBody: Buffer.from('{}'),
      headerUsage: () => bedrockUsageFromHeaders((n) => headers[n], { url }),
    });
    tap.push(Buffer.from('{"outputs":[{"text":"ok"}]}'));
    const { usage } = await tap.finish();
    expect(usage.ok && usage.usage).toMatchObject({
      inputTokens: 2012,
      cacheReadTokens: 2000,
      outputTokens: 30,
    });
    expect(
      bedrockUsageFromHeaders((n) => ({ 'x-amzn-bedrock-input-token-count': '-1' })[n], { url }),
    ).toBeUndefined();
  });

  it('Converse: the body names the tier, the header does not override it', async () => {
    const tap = new UsageTap(200, 'application/json', undefined, {
      provider: bedrock,
      url: `${URL_BASE}openai.gpt-5.4/converse`,
      requestBody: Buffer.from('{}'),
      serviceTier: 'default',
    });
    tap.push(fixture('converse-openai-cache.json'));
    const { usage } = await tap.finish();
    expect(usage.ok && usage.usage.serviceTier).toBe('priority');
  });

  it('an event stream (application/vnd.amazon.eventstream) is decoded with the AWS codec, chunk by chunk', async () => {
    const tap = new UsageTap(200, 'application/vnd.amazon.eventstream', undefined, {
      provider: bedrock,
      url: `${URL_BASE}${encodeURIComponent('us.amazon.nova-pro-v1:0')}/converse-stream`,
      requestBody: Buffer.from('{}'),
    });
    const bytes = bedrockStreamFixture('converse-stream-nova.json');
    for (let i = 0; i < bytes.byteLength; i += 7) tap.push(Buffer.from(bytes.subarray(i, i + 7)));
    const result = await tap.finish();
    expect(result.stream).toBe(true);
    expect(result.usage.ok && result.usage.usage).toMatchObject({ inputTokens: 1200, outputTokens: 85 });
  });
});
