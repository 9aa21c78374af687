/**
 * `GET /v1/reconciliation`, `POST /v1/reconciliation/run` and `GET|PUT /v1/reconciliation/credentials`:
 * the ledger against the providers' own usage and cost reports (docs/reconciliation.md).
 * @module
 */
import { z } from 'zod';
import { RECONCILED_PROVIDERS, RECONCILIATION_SOURCES } from '../../reconciliation/providers';
import { count, timestamp, usd } from './common';

const provider = z.enum(RECONCILIATION_SOURCES).meta({
  description:
    "A reconciled provider: openai, anthropic or openrouter (their own reports), or bedrock (the AWS account's CloudWatch token metrics).",
  example: 'openai',
});
const adminKeyProvider = z.enum(RECONCILED_PROVIDERS).meta({
  description: 'A provider reconciled with an admin credential: openai, anthropic or openrouter.',
  example: 'openai',
});
/** Most regions one Bedrock setting reads (each is one ListMetrics and GetMetricData pass). */
export const MAX_BEDROCK_RECONCILIATION_REGIONS = 20;
const awsRegion = z
  .string()
  .regex(/^[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$/, 'an AWS region code such as us-east-1')
  .meta({ description: 'An AWS region code.', example: 'us-east-1' });
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .meta({ description: 'UTC day, YYYY-MM-DD.', example: '2026-11-22' });
const percent = (description: string, example: number) =>
  z.number().min(0).max(100).nullable().meta({ description, example });

/** One day and model of one provider. */
export const reconciliationDaySchema = z
  .strictObject({
    date: day,
    model: z.string().optional().meta({
      description:
        'Model (dated snapshots folded to the family name); absent for spend the provider attributes to no model (a tool fee).',
      example: 'gpt-4o-mini',
    }),
    ledgerUsd: usd('What the ledger holds.', 1.2),
    providerUsd: usd('What the provider billed.', 1.25),
    untrackedUsd: usd('Billed by the provider, never seen by Spendguard.', 0.05),
    overcountedUsd: usd('In the ledger, not billed.', 0),
    ledgerTokens: count('Input + output tokens in the ledger.', 120_000),
    providerTokens: count('Input + output tokens the provider counted.', 125_000),
  })
  .meta({ description: 'Ledger against provider for one UTC day and model.' });

export const providerReconciliationSchema = z
  .strictObject({
    provider,
    source: z.enum(['provider_report', 'token_metrics_at_rates']).meta({
      description:
        "Where providerUsd comes from: the provider's own usage and cost reports (what it billed), or, for bedrock, the account's CloudWatch token metrics priced at the list or organization rates (not an invoice).",
      example: 'provider_report',
    }),
    ledgerUsd: usd('Ledger spend over the window.', 84.1),
    providerUsd: usd('Billed by the provider over the window.', 86.3),
    untrackedUsd: usd('Billed, never seen by Spendguard.', 2.2),
    overcountedUsd: usd('In the ledger, not billed.', 0),
    agreementPct: percent(
      'Measured agreement (spec 1.3 "audited confidence"): Σ min(ledger, provider) / Σ max(ledger, provider) over days and models, in percent; null when neither side has spend.',
      97.45,
    ),
    tokenAgreementPct: percent('The same over tokens.', 99.1),
    days: z
      .array(reconciliationDaySchema)
      .meta({ description: 'One row per UTC day and model, oldest first.' }),
  })
  .meta({ description: 'One provider reconciled over the window.' });

export const reconciliationResponseSchema = z
  .strictObject({
    providers: z
      .array(providerReconciliationSchema)
      .meta({ description: 'Providers with a stored admin credential whose reports were read.' }),
    computedAt: timestamp('When the reconciliation ran; null before the first run.').nullable(),
    window: z
      .strictObject({ from: day, to: day })
      .nullable()
      .meta({ description: 'The UTC days compared (today included); null before the first run.' }),
    errors: z
      .array(
        z.strictObject({
          provider,
          message: z.string().meta({
            description: 'What failed (never a credential).',
            example: 'openai: /v1/organization/costs answered 401',
          }),
        }),
      )
      .meta({ description: 'Providers whose reports could not be read in this run.' }),
  })
  .meta({ description: 'Response of GET /v1/reconciliation and POST /v1/reconciliation/run.' });
export type ReconciliationResponse = z.infer<typeof reconciliationResponseSchema>;

/** Body of PUT /v1/reconciliation/credentials for a provider reconciled with an admin credential. */
export const putAdminKeyCredentialRequestSchema = z
  .strictObject({
    provider: adminKeyProvider,
    adminKey: z
      .string()
      .min(8, 'an admin key is at least 8 characters')
      .max(1024, 'an admin key is at most 1024 characters')
      .regex(/^\S+$/, 'an admin key has no whitespace')
      .meta({
        description:
          'OpenAI admin key (sk-admin-…), Anthropic Admin API key (sk-ant-admin01-…) or OpenRouter management key. Stored in Secrets Manager; never returned or logged.',
        example: 'sk-admin-…',
      }),
  })
  .meta({ description: 'An admin credential (openai, anthropic, openrouter).' });

/**
 * Body of PUT /v1/reconciliation/credentials for Amazon Bedrock: no key (the reconciliation function's
 * own role reads CloudWatch in the deployment account); the organization claims that account's figures.
 */
export const putBedrockReconciliationRequestSchema = z
  .strictObject({
    provider: z.literal('bedrock').meta({ description: 'Amazon Bedrock.', example: 'bedrock' }),
    regions: z
      .array(awsRegion)
      .min(1, 'name at least one region, or leave regions out for the deployment region')
      .max(MAX_BEDROCK_RECONCILIATION_REGIONS, `at most ${MAX_BEDROCK_RECONCILIATION_REGIONS} regions`)
      .refine((r) => new Set(r).size === r.length, 'each region once')
      .optional()
      .meta({
        description:
          "Regions whose AWS/Bedrock token metrics are read (every region the organization's agents call); absent: the deployment region.",
        example: ['us-east-1', 'us-west-2'],
      }),
  })
  .meta({ description: "Amazon Bedrock: which regions' CloudWatch token metrics to read." });

/** Body of PUT /v1/reconciliation/credentials. */
export const putReconciliationCredentialRequestSchema = z
  .discriminatedUnion('provider', [putAdminKeyCredentialRequestSchema, putBedrockReconciliationRequestSchema])
  .meta({ description: 'Body of PUT /v1/reconciliation/credentials.' });
export type PutReconciliationCredentialRequest = z.infer<typeof putReconciliationCredentialRequestSchema>;

export const reconciliationCredentialsResponseSchema = z
  .strictObject({
    providers: z
      .array(
        z.strictObject({
          provider,
          configured: z.boolean().meta({
            description: 'An admin credential is stored (bedrock: the organization claims the account).',
            example: true,
          }),
          regions: z
            .array(awsRegion)
            .optional()
            .meta({
              description:
                'bedrock only, when configured: the regions read (the deployment region when none was named).',
              example: ['us-east-1'],
            }),
        }),
      )
      .meta({
        description: 'Every reconciled provider and whether a credential is stored; never the credential.',
      }),
  })
  .meta({ description: 'Response of GET and PUT /v1/reconciliation/credentials.' });
export type ReconciliationCredentialsResponse = z.infer<typeof reconciliationCredentialsResponseSchema>;

/** Path of DELETE /v1/reconciliation/credentials/{provider}. */
export const reconciliationProviderPathSchema = z.strictObject({ provider });
