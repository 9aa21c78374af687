/**
 * The demo fleet: two healthy agents and one runaway per guardrail layer (docs/guardrails.md). Each agent
 * is a small loop around an official client — `openai` or `@anthropic-ai/sdk` — pointed either at the
 * proxy (`baseURL` + `Service-API-Key`) or straight at the (mock) provider with the SDK's `wrapFetch`.
 *
 * Token counts come from the mock providers (local/mock-providers/tokens.ts): prompt tokens are
 * ceil(characters / 4) over the messages, completion tokens are `max_tokens` (capped at 64) or the
 * `x-mock-chunks` request header (up to 100,000), which is how the expensive agents spend dollars per call.
 */
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { wrapFetch } from '../sdk/src';

/** How an agent reaches the provider. */
export type AgentPath = 'proxy' | 'sdk';

/** What an agent gets to build its clients. */
export interface AgentContext {
  /** The agent's API key (shared with the other agents that name the same `key` in its organization). */
  readonly apiKey: string;
  /** Spendguard API base URL (the SDK posts its events to `<apiUrl>/v1/events`). */
  readonly apiUrl: string;
  readonly proxyUrl: string;
  /** The providers' base URLs (the mock providers), for the SDK path which calls them directly. */
  readonly providerUrls: Readonly<Record<string, string>>;
}

/**
 * One call: the model it asked for and, when the agent reports it, the usage the provider answered with.
 * A thrown error ends the agent's worker (the runner classifies it).
 */
export type AgentCall = (n: number) => Promise<{ model: string; usage?: CallUsage }>;

/** Tokens of one served call, as the provider reported them. */
export interface CallUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/**
 * Layers of a guardrail policy to override for an organization (`PUT /v1/budget {policy: {layers}}`,
 * docs/guardrails.md), e.g. `{ rpsBurst: { maxRequests: 30 } }`.
 */
export type PolicyLayers = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** An organization of the demo and what its owner configured. */
export interface DemoOrg {
  /** Short label for the tables. */
  readonly label: string;
  /** Hosts the organization in the stack's seeded one (`org_local`), the one the dashboard shows. */
  readonly dashboard?: boolean;
  /** A daily hard cap (`PUT /v1/budget`, action `block`), in USD. */
  readonly dailyCapUsd?: number;
  readonly policy?: PolicyLayers;
}

export interface AgentSpec {
  readonly name: string;
  /** One line: what the agent does. */
  readonly behaviour: string;
  readonly path: AgentPath;
  readonly client: 'openai' | 'anthropic' | 'bedrock';
  /** The model(s) it calls, for the roster. */
  readonly models: string;
  /** The guardrail layer (1–5) expected to stop it; null for a healthy agent, which must never be stopped. */
  readonly expectedLayer: 1 | 2 | 3 | 4 | 5 | null;
  /** Its organization; agents naming the same one share it. */
  readonly org: DemoOrg;
  /** Name of its API key in the organization; agents naming the same key share it. */
  readonly key: string;
  /** The session it names (SDK `sessionId` / proxy `x-spendguard-session`), if any. */
  readonly session?: string;
  /**
   * Concurrent workers (default 1). Each worker loops on its own; the call number is shared, and the
   * agent is stopped once every worker has been refused.
   */
  readonly concurrency?: number;
  /** Upper bound on calls (a runaway not stopped by then has escaped). */
  readonly maxCalls: number;
  /** A healthy agent stops once every runaway is done and it has made at least this many calls. */
  readonly minCalls?: number;
  /** Pause before call `n` (n ≥ 2), in ms. */
  paceMs(n: number): number;
  /** Builds the agent's clients and returns its call function. */
  create(ctx: AgentContext): AgentCall;
}

// ---------------------------------------------------------------------------------------------------
// Clients

/** A provider key the mock providers accept (and the proxy forwards untouched). */
const PROVIDER_KEY = 'sk-demo-not-a-real-key';

/** The official OpenAI client's default `maxRetries`. */
const OPENAI_DEFAULT_MAX_RETRIES = 2;

/** `maxRetries: 0` keeps the call count exact; the proxy's 429 carries `x-should-retry: false` anyway. */
const CLIENT_DEFAULTS = { apiKey: PROVIDER_KEY, maxRetries: 0, timeout: 15_000 } as const;

function proxyHeaders(ctx: AgentContext, session?: string): Record<string, string> {
  return { 'Service-API-Key': ctx.apiKey, ...(session ? { 'x-spendguard-session': session } : {}) };
}

function openaiViaProxy(ctx: AgentContext, session?: string, maxRetries = 0): OpenAI {
  return new OpenAI({
    ...CLIENT_DEFAULTS,
    maxRetries,
    baseURL: `${ctx.proxyUrl}/openai/v1`,
    defaultHeaders: proxyHeaders(ctx, session),
  });
}

function anthropicViaProxy(ctx: AgentContext, session?: string): Anthropic {
  return new Anthropic({
    ...CLIENT_DEFAULTS,
    baseURL: `${ctx.proxyUrl}/anthropic`,
    defaultHeaders: proxyHeaders(ctx, session),
  });
}

/** The OpenAI client straight to the provider, recorded by the SDK (`wrapFetch`), as an application would. */
function openaiViaSdk(ctx: AgentContext, sessionId?: string): OpenAI {
  const providerUrl = ctx.providerUrls.openai;
  if (providerUrl === undefined)
    throw new Error('no OpenAI provider URL (start the stack with mockProviders)');
  return new OpenAI({
    ...CLIENT_DEFAULTS,
    baseURL: `${providerUrl}/v1`,
    fetch: wrapFetch(fetch, {
      apiKey: ctx.apiKey,
      endpoint: ctx.apiUrl,
      // The mock provider runs on 127.0.0.1, not api.openai.com: name the provider.
      provider: 'openai',
      projectId: 'spendguard-demo',
      environment: 'development',
      flushIntervalMs: 250,
      ...(sessionId ? { sessionId } : {}),
    }),
  });
}

/** Per-request mock steering: latency and, for the expensive agents, the completion size. */
function mockHeaders(latencyMs: number, completionTokens?: number): { headers: Record<string, string> } {
  return {
    headers: {
      'x-mock-latency-ms': String(latencyMs),
      ...(completionTokens !== undefined ? { 'x-mock-chunks': String(completionTokens) } : {}),
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Prompts

/** A small deterministic PRNG (mulberry32), so every run sends the same traffic. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(items: readonly T[], n: number): T => items[(n - 1) % items.length] as T;

const CUSTOMER_QUESTIONS = [
  'Where is my order #10442? It was supposed to arrive on Tuesday.',
  'Can I change the delivery address of an order that has already shipped?',
  'How do I return a pair of shoes that do not fit? I bought them three weeks ago and kept the box.',
  'Do you ship to Norway?',
  'My discount code SPRING25 is rejected at checkout although the banner says it is valid until Sunday. What is wrong?',
  'Is the blue jacket available in size M?',
  'I was charged twice for the same order. Please refund the duplicate payment.',
  'What are your opening hours on public holidays?',
  'The zipper on my backpack broke after two weeks of normal use; is this covered by the warranty, and do I need to send it back or can you just send a replacement?',
];

const RESEARCH_TASKS = [
  'Summarize the main arguments for and against four-day work weeks in two paragraphs.',
  'List three recent approaches to retrieval-augmented generation and how they differ.',
  'What is the difference between a p95 and a p99 latency, and when does each matter?',
  'Explain Monte Carlo simulation to a product manager.',
  'Compare PostgreSQL logical replication with physical streaming replication for a zero-downtime migration, including how each handles schema changes, sequences and large objects.',
  'Give five title ideas for a blog post about cost control for AI agents.',
  'Translate "the invoice is overdue" into French, German and Spanish.',
  'Which sorting algorithm does V8 use for Array.prototype.sort?',
  'Draft a short, friendly reminder e-mail about an upcoming design review on Thursday.',
];

/** The error an agent stuck in a tool loop keeps appending to its context. */
const TOOL_ERROR =
  'Tool `run_tests` failed: Error: connect ECONNREFUSED 127.0.0.1:5432 (could not connect to the test ' +
  'database). at Connection.connect (db/pool.ts:88:13) at async runMigrations (scripts/migrate.ts:41:5). ' +
  'Fix the problem and call the tool again.';

const LOREM =
  'Customer reports that the mobile app logs them out after every update and the password reset e-mail ' +
  'arrives late; they also ask whether invoices can be downloaded as PDF and whether the annual plan can ' +
  'be paid in instalments. Priority unclear, account created in 2021, two previous tickets closed.';

// ---------------------------------------------------------------------------------------------------
// The fleet

/**
 * The team's organization: four agents on two keys, plus a batch key. Loops (layers 2 and 3) are stopped
 * in their session, a burst (layer 4) on its key, so the runaways here must not stop their neighbours.
 * Its layer 4 allows 30 requests a minute per key: two agents share each key here (≈ 20 calls a minute
 * on one key at their pace while both run), which the default 10 would call a burst.
 */
const TEAM: DemoOrg = { label: 'team', policy: { rpsBurst: { maxRequests: 30 } } };

/**
 * The dashboard's organization (`org_local`): a $0.30 daily hard cap and a fleet of 32 concurrent workers.
 * Only layer 1 (and the relay's admission) is on, as a team capping a batch job would have it: the
 * fleet's 32 parallel calls are a burst to layer 4 by design.
 */
const CAPPED: DemoOrg = {
  label: 'local',
  dashboard: true,
  dailyCapUsd: 0.3,
  policy: {
    identicalLoop: { enabled: false },
    contextGrowth: { enabled: false },
    rpsBurst: { enabled: false },
    premiumConcentration: { enabled: false },
  },
};

/** An organization of its own: layer 5 (premium concentration) stops the whole organization. */
const PREMIUM: DemoOrg = { label: 'premium' };

/** Healthy, proxy: customer questions on a cheap Anthropic model, one every ~2.5 s. */
const supportBot: AgentSpec = {
  name: 'support-bot',
  behaviour: 'varied customer questions, one every ~2.5 s',
  path: 'proxy',
  client: 'anthropic',
  models: 'claude-haiku-4-5',
  expectedLayer: null,
  org: TEAM,
  key: 'agents-proxy',
  session: 'support-1',
  maxCalls: 12,
  minCalls: 4,
  paceMs: (n) => 2200 + (n % 3) * 300,
  create(ctx) {
    const anthropic = anthropicViaProxy(ctx, 'support-1');
    return async (n) => {
      const model = 'claude-haiku-4-5';
      await anthropic.messages.create(
        {
          model,
          max_tokens: 40 + (n % 4) * 6,
          system: 'You are the support assistant of an online shop. Be brief and kind.',
          messages: [{ role: 'user', content: pick(CUSTOMER_QUESTIONS, n) }],
        },
        mockHeaders(150 + (n % 3) * 60),
      );
      return { model };
    };
  },
};

/** Healthy, SDK: research questions on gpt-4o-mini straight to the provider, recorded by `wrapFetch`. */
const researchAssistant: AgentSpec = {
  name: 'research-assistant',
  behaviour: 'varied research questions, one every ~2.5 s',
  path: 'sdk',
  client: 'openai',
  models: 'gpt-4o-mini',
  expectedLayer: null,
  org: TEAM,
  key: 'agents-sdk',
  session: 'research-1',
  maxCalls: 12,
  minCalls: 4,
  paceMs: (n) => 2300 + (n % 2) * 400,
  create(ctx) {
    const openai = openaiViaSdk(ctx, 'research-1');
    return async (n) => {
      const model = 'gpt-4o-mini';
      await openai.chat.completions.create(
        {
          model,
          max_tokens: 48 + (n % 3) * 8,
          messages: [
            { role: 'system', content: 'You are a concise research assistant.' },
            { role: 'user', content: pick(RESEARCH_TASKS, n) },
          ],
        },
        mockHeaders(120 + (n % 4) * 40),
      );
      return { model };
    };
  },
};

/**
 * Layer 2, through the SDK: the same failing request resent in a loop (every 1.5 s), on the same key as
 * `research-assistant`. The SDK fingerprints each request, so the 4th identical one trips layer 2 for
 * this session; the next flush answer carries the session's flag (`enforcement`), and the SDK refuses
 * this session's calls — not research-assistant's, which go on.
 */
const retryLoop: AgentSpec = {
  name: 'retry-loop',
  behaviour: 'resends the identical request every 1.5 s',
  path: 'sdk',
  client: 'openai',
  models: 'gpt-4o-mini',
  expectedLayer: 2,
  org: TEAM,
  key: 'agents-sdk',
  session: 'retry-loop-1',
  maxCalls: 14,
  paceMs: () => 1500,
  create(ctx) {
    const openai = openaiViaSdk(ctx, 'retry-loop-1');
    return async () => {
      const model = 'gpt-4o-mini';
      await openai.chat.completions.create(
        {
          model,
          max_tokens: 32,
          messages: [
            { role: 'system', content: 'You are a billing agent with a fetch_invoice tool.' },
            { role: 'user', content: 'Fetch invoice INV-2291 and check that it was paid.' },
          ],
        },
        mockHeaders(60),
      );
      return { model };
    };
  },
};

/**
 * Layer 3, through the proxy: re-appends the same tool error to a growing context (every second), on the
 * same key as `support-bot`; the session flag refuses only its own session.
 */
const contextGrower: AgentSpec = {
  name: 'context-grower',
  behaviour: 're-appends the same tool error to its context',
  path: 'proxy',
  client: 'openai',
  models: 'gpt-4o-mini',
  expectedLayer: 3,
  org: TEAM,
  key: 'agents-proxy',
  session: 'migration-agent-7',
  maxCalls: 16,
  paceMs: () => 1000,
  create(ctx) {
    const openai = openaiViaProxy(ctx, 'migration-agent-7');
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a coding agent. Use the tools to make the test suite pass.' },
      { role: 'user', content: 'Run the database migrations and then the tests.' },
    ];
    return async () => {
      const model = 'gpt-4o-mini';
      const reply = await openai.chat.completions.create(
        { model, max_tokens: 16, messages },
        mockHeaders(60),
      );
      // Each step adds the same amount: the model's (fixed-size) answer and the same error again.
      messages.push({ role: 'assistant', content: reply.choices[0]?.message.content ?? '' });
      messages.push({ role: 'user', content: TOOL_ERROR });
      return { model };
    };
  },
};

/** Layer 4, through the proxy: fires distinct small requests every 60 ms on its own key. */
const burstSender: AgentSpec = {
  name: 'burst-sender',
  behaviour: 'a request every 60 ms (a fan-out gone wrong)',
  path: 'proxy',
  client: 'openai',
  models: 'gpt-4o-mini',
  expectedLayer: 4,
  org: TEAM,
  key: 'batch-classifier',
  maxCalls: 300, // stopped after ~40 in practice; the bound only ends an escaped burst
  paceMs: () => 60,
  create(ctx) {
    const openai = openaiViaProxy(ctx);
    const random = prng(4);
    return async (n) => {
      const model = 'gpt-4o-mini';
      // Distinct prompts of random sizes: no identical run (layer 2), no linear growth (layer 3).
      const start = Math.floor(random() * 120);
      const text = LOREM.slice(start, start + 40 + Math.floor(random() * 120));
      await openai.chat.completions.create(
        { model, max_tokens: 8, messages: [{ role: 'user', content: `Classify ticket #${n}: ${text}` }] },
        mockHeaders(10),
      );
      return { model };
    };
  },
};

/**
 * Layer 5, through the proxy: two ordinary calls, then its routing is hijacked onto a flagship model
 * with very long answers (34,000 output tokens ≈ $2.55 a call at $75 per million).
 */
const premiumHijack: AgentSpec = {
  name: 'premium-hijack',
  behaviour: 'routed onto a flagship model after 2 calls',
  path: 'proxy',
  client: 'anthropic',
  models: 'claude-haiku-4-5 → claude-opus-4-1',
  expectedLayer: 5,
  org: PREMIUM,
  key: 'planner',
  session: 'planner-3',
  maxCalls: 12,
  paceMs: () => 1000,
  create(ctx) {
    const anthropic = anthropicViaProxy(ctx, 'planner-3');
    return async (n) => {
      const hijacked = n > 2;
      const model = hijacked ? 'claude-opus-4-1' : 'claude-haiku-4-5';
      await anthropic.messages.create(
        {
          model,
          max_tokens: 1024,
          messages: [
            { role: 'user', content: `Plan step ${n} of the quarterly report: gather the figures.` },
          ],
        },
        mockHeaders(80, hijacked ? 34_000 : undefined),
      );
      return { model };
    };
  },
};

/** Completion tokens of one `budget-fleet` call: `max_tokens`, and what the mock answers. */
export const FLEET_COMPLETION_TOKENS = 500;

/**
 * Layer 1, through the proxy: 32 concurrent workers on gpt-4o, 500-token answers (≈ $0.005 a call), in
 * the dashboard's organization with a $0.30 daily hard cap. `max_tokens` equals the answer, so the
 * relay's worst case is tight; it refuses a call (429 `budget_daily_hard`) once the call's worst case no
 * longer fits under the cap, so the fleet ends held at its cap.
 */
const budgetFleet: AgentSpec = {
  name: 'budget-fleet',
  behaviour: '32 concurrent gpt-4o calls of ≈ $0.005; cap $0.30/day',
  path: 'proxy',
  client: 'openai',
  models: 'gpt-4o',
  expectedLayer: 1,
  org: CAPPED,
  key: 'catalog-batch',
  concurrency: 32,
  maxCalls: 400,
  paceMs: () => 50,
  create(ctx) {
    // The official client's own retries, as a user has them: a retryable `budget_busy` 429 (room held by
    // calls in flight, a slow store) is retried; `budget_exceeded` (x-should-retry: false) is not.
    const openai = openaiViaProxy(ctx, undefined, OPENAI_DEFAULT_MAX_RETRIES);
    return async (n) => {
      const model = 'gpt-4o';
      const reply = await openai.chat.completions.create(
        {
          model,
          max_tokens: FLEET_COMPLETION_TOKENS,
          messages: [
            { role: 'user', content: `Write the product description for catalog item ${1000 + n}.` },
          ],
        },
        mockHeaders(150, FLEET_COMPLETION_TOKENS),
      );
      return {
        model,
        usage: {
          promptTokens: reply.usage?.prompt_tokens ?? 0,
          completionTokens: reply.usage?.completion_tokens ?? 0,
        },
      };
    };
  },
};

/** The demo fleet, in display order: healthy agents first, then the runaways by layer. */
/** Its own organization: only its own calls count toward its layers. */
const AWS_TEAM: DemoOrg = { label: 'aws' };

/**
 * Layer 2, through the proxy, on Amazon Bedrock: the AWS SDK's Bedrock Runtime client as it comes (HTTP/2,
 * a Bedrock API key as bearer token) resends the same Converse request every 1.5 s. The refusal is a
 * `ServiceQuotaExceededException` (HTTP 400) the AWS SDK does not retry (docs/bedrock.md).
 */
const bedrockLoop: AgentSpec = {
  name: 'bedrock-loop',
  behaviour: 'AWS SDK Converse agent resending the identical request every 1.5 s',
  path: 'proxy',
  client: 'bedrock',
  models: 'us.anthropic.claude-haiku-4-5',
  expectedLayer: 2,
  org: AWS_TEAM,
  key: 'bedrock-proxy',
  session: 'bedrock-loop-1',
  maxCalls: 14,
  paceMs: () => 1500,
  create(ctx) {
    const bedrock = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: `${ctx.proxyUrl}/bedrock/us-east-1`,
      token: { token: 'bedrock-api-key-demo' },
      authSchemePreference: ['httpBearerAuth'],
      maxAttempts: 1,
    });
    bedrock.middlewareStack.add(
      (next) => (args) => {
        const headers = (args.request as { headers: Record<string, string> }).headers;
        Object.assign(headers, proxyHeaders(ctx, 'bedrock-loop-1'));
        return next(args);
      },
      { step: 'build', name: 'spendguardHeaders' },
    );
    const model = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
    return async () => {
      const out = await bedrock.send(
        new ConverseCommand({
          modelId: model,
          messages: [{ role: 'user', content: [{ text: 'Deploy failed: rerun the same migration step.' }] }],
          inferenceConfig: { maxTokens: 64 },
        }),
      );
      const usage = out.usage;
      return {
        model,
        ...(usage?.inputTokens !== undefined && usage.outputTokens !== undefined
          ? { usage: { promptTokens: usage.inputTokens, completionTokens: usage.outputTokens } }
          : {}),
      };
    };
  },
};

export const FLEET: readonly AgentSpec[] = [
  supportBot,
  researchAssistant,
  budgetFleet,
  retryLoop,
  contextGrower,
  burstSender,
  premiumHijack,
  bedrockLoop,
];
