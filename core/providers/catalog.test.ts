import {
  detectProvider,
  getProvider,
  PROVIDER_IDS,
  PROVIDERS,
  providerBySlug,
  requestFlavorOf,
} from './index';

describe('detectProvider', () => {
  it.each([
    ['https://api.openai.com/v1/chat/completions', 'openai'],
    ['https://api.openai.com/v1/responses', 'openai'],
    ['https://api.openai.com/v1', 'openai'],
    ['https://eu.api.openai.com/v1/embeddings', 'openai'],
    ['https://API.OpenAI.com:443/v1/chat/completions?x=1#frag', 'openai'],
    ['https://user:secret@api.openai.com/v1/models', 'openai'],
    ['https://api.openai.com./v1/chat/completions', 'openai'],
    ['https://api.anthropic.com/v1/messages', 'anthropic'],
    ['https://api.anthropic.com/v1/messages/count_tokens', 'anthropic'],
    ['https://openrouter.ai/api/v1/chat/completions', 'openrouter'],
    ['https://openrouter.ai/anything/at/all', 'openrouter'],
    ['https://openrouter.ai', 'openrouter'],
    ['https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent', 'gemini'],
    [
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      'gemini',
    ],
    ['https://generativelanguage.googleapis.com/v1/models/gemini-2.0-flash:generateContent', 'gemini'],
    ['https://generativelanguage.googleapis.com/v1beta/openai/chat/completions', 'gemini'],
    ['https://api.groq.com/openai/v1/chat/completions', 'groq'],
    ['https://api.together.xyz/v1/chat/completions', 'together'],
    ['https://api.together.ai/v1/completions', 'together'],
    ['https://api.mistral.ai/v1/chat/completions', 'mistral'],
    ['https://codestral.mistral.ai/v1/fim/completions', 'mistral'],
    ['https://api.deepseek.com/chat/completions', 'deepseek'],
    ['https://api.deepseek.com/v1/chat/completions', 'deepseek'],
    ['https://api.x.ai/v1/chat/completions', 'xai'],
    // Bedrock's OpenAI-compatible endpoints, which OpenAI's client calls through fetch
    ['https://bedrock-runtime.us-west-2.amazonaws.com/openai/v1/chat/completions', 'bedrock'],
    ['https://bedrock-mantle.eu-central-1.api.aws/v1/chat/completions', 'bedrock'],
    ['https://BEDROCK-RUNTIME.us-east-1.amazonaws.com./openai/v1/chat/completions', 'bedrock'],
  ])('%s → %s', (url, id) => {
    expect(detectProvider(url)?.id).toBe(id);
    expect(detectProvider(new URL(url))?.id).toBe(id);
  });

  it.each([
    // wrong path under a provider host
    'https://api.openai.com/dashboard',
    'https://api.openai.com/v10/chat/completions',
    'https://api.openai.com/',
    'https://api.anthropic.com/v2/messages',
    'https://generativelanguage.googleapis.com/v1alpha/models/x:generateContent',
    'https://api.groq.com/v1/chat/completions',
    // other hosts, including look-alikes
    'https://example.com/v1/chat/completions',
    'https://api.openai.com.evil.example/v1/chat/completions',
    'https://evil.example/api.openai.com/v1/chat/completions',
    'https://openrouter.ai.example/api/v1',
    'https://my-company.openai.azure.com/openai/deployments/gpt-4o/chat/completions',
    'http://localhost:11434/api/chat',
    'http://localhost:8000/v1/chat/completions',
    // Bedrock's runtime operations (the AWS SDK's, recorded by instrumentAwsClient), and look-alikes
    'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku/converse',
    'https://bedrock-runtime.us-east-1.amazonaws.com.evil.example/openai/v1/chat/completions',
    'https://bedrock-mantle.us-east-1.api.aws.evil/v1/chat/completions',
    'https://bedrock.us-east-1.amazonaws.com/openai/v1/chat/completions',
    // not absolute URLs
    '/v1/chat/completions',
    'api.openai.com/v1/chat/completions',
    '',
    'not a url',
  ])('%s → undefined', (url) => {
    expect(detectProvider(url)).toBeUndefined();
  });

  it('never auto-detects llama, wherever it runs', () => {
    const llama = getProvider('llama');
    expect(llama?.autoDetect).toBe(false);
    for (const url of ['http://localhost:11434/api/chat', 'http://vllm.internal:8000/v1/chat/completions']) {
      expect(detectProvider(url)).toBeUndefined();
    }
  });

  it('returns undefined for values that are neither strings nor URLs', () => {
    expect(detectProvider(42 as unknown as string)).toBeUndefined();
    expect(detectProvider(null as unknown as string)).toBeUndefined();
  });
});

describe('the catalog', () => {
  it("has the specification's four providers first", () => {
    expect(PROVIDER_IDS.slice(0, 4)).toEqual(['openai', 'anthropic', 'openrouter', 'llama']);
    expect(PROVIDER_IDS).toEqual(
      expect.arrayContaining(['gemini', 'groq', 'together', 'mistral', 'deepseek', 'xai']),
    );
  });

  it.each(PROVIDERS.map((p) => [p.id, p] as const))(
    '%s: lowercase id equal to its slug, valid fields',
    (_id, p) => {
      expect(p.id).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(p.slug).toBe(p.id);
      expect(getProvider(p.id)).toBe(p);
      expect(providerBySlug(p.slug)).toBe(p);
      for (const host of p.hosts) expect(host).toBe(host.toLowerCase());
      for (const prefix of p.pathPrefixes) expect(prefix).toMatch(/^\/[^/].*[^/]$|^\/[^/]$/);
      expect(new URL(p.upstreamBaseUrl).pathname).toBe('/');
      expect(p.upstreamBaseUrl.endsWith('/')).toBe(false);
      expect(['openai', 'anthropic', 'gemini', 'ollama']).toContain(p.requestFlavor);
      expect(typeof p.usage.fromJson).toBe('function');
      expect(typeof p.usage.stream).toBe('function');
      expect(p.autoDetect).toBe(p.hosts.length > 0);
    },
  );

  it('points each detected provider at its own host by default', () => {
    for (const p of PROVIDERS.filter((e) => e.autoDetect)) {
      expect(p.hosts).toContain(new URL(p.upstreamBaseUrl).hostname);
    }
  });

  it('gives no host to two providers', () => {
    const hosts = PROVIDERS.flatMap((p) => p.hosts);
    expect(new Set(hosts).size).toBe(hosts.length);
  });

  it('returns undefined for unknown ids and slugs', () => {
    expect(getProvider('OpenAI')).toBeUndefined();
    expect(providerBySlug('azure')).toBeUndefined();
  });

  it('freezes entries', () => {
    const openai = getProvider('openai');
    expect(Object.isFrozen(openai)).toBe(true);
    expect(Object.isFrozen(PROVIDERS)).toBe(true);
  });
});

describe('requestFlavorOf', () => {
  it.each([
    ['llama', 'http://localhost:11434/api/chat', 'ollama'],
    ['llama', 'http://localhost:11434/api/generate', 'ollama'],
    ['llama', '/api/embed', 'ollama'],
    ['llama', 'http://vllm:8000/v1/chat/completions', 'openai'],
    [
      'gemini',
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent',
      'gemini',
    ],
    ['gemini', 'https://generativelanguage.googleapis.com/v1beta/openai/chat/completions', 'openai'],
    ['anthropic', 'https://api.anthropic.com/v1/messages', 'anthropic'],
    ['openrouter', undefined, 'openai'],
  ] as const)('%s at %s → %s', (id, url, flavor) => {
    const entry = getProvider(id);
    expect(entry).toBeDefined();
    if (entry) expect(requestFlavorOf(entry, url)).toBe(flavor);
  });
});
