/**
 * The OpenTelemetry GenAI semantic-convention names Spendguard exports (semconv 1.45, "Development"
 * status). OpenTelemetry advises copying incubating names rather than importing them, because they may
 * change in a minor release; `gen-ai-conventions.test.ts` compares each one with the package's
 * `@opentelemetry/semantic-conventions/incubating` export, so a rename breaks the test, not the export.
 * `core/` stays free of dependencies: these are plain strings.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  conversationId: 'gen_ai.conversation.id',
  requestStream: 'gen_ai.request.stream',
  /** Every prompt token, cache reads and writes INCLUDED (the convention since semconv 1.37). */
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  reasoningOutputTokens: 'gen_ai.usage.reasoning.output_tokens',
  tokenType: 'gen_ai.token.type',
  errorType: 'error.type',
} as const;

/**
 * Cost has no convention yet: these follow the open proposal (`gen_ai.usage.cost.*`) and are marked
 * experimental in docs/opentelemetry.md. The amount is USD as a double (OTLP has no integer money);
 * `spendguard.cost.nanos` carries the exact integer the ledger holds.
 */
export const GEN_AI_COST = {
  amount: 'gen_ai.usage.cost.amount',
  currency: 'gen_ai.usage.cost.currency',
  source: 'gen_ai.usage.cost.source',
} as const;

/** The released GenAI client metrics, and Spendguard's own cost counter. */
export const GEN_AI_METRICS = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  /** Not a convention: the USD sum of the ledger's costs. */
  cost: 'spendguard.gen_ai.client.cost',
} as const;

/** Spendguard's own attributes (namespace `spendguard.`). */
export const SPENDGUARD = {
  organizationId: 'spendguard.organization.id',
  apiKeyId: 'spendguard.api_key.id',
  sessionId: 'spendguard.session.id',
  featureId: 'spendguard.feature.id',
  projectId: 'spendguard.project.id',
  environment: 'spendguard.environment',
  estimated: 'spendguard.usage.estimated',
  eventId: 'spendguard.event.id',
  eventSource: 'spendguard.event.source',
  costNanos: 'spendguard.cost.nanos',
  pricedAs: 'spendguard.cost.priced_as',
  verified: 'spendguard.key.verified',
  guardrailLayer: 'spendguard.guardrail.layer',
  guardrailScope: 'spendguard.guardrail.scope',
  guardrailReason: 'spendguard.guardrail.reason',
} as const;
