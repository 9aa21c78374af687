import { bedrockUsage } from '../usage/bedrock';
import { bedrockModelFromPath, isBedrockOpenAIEndpoint } from './bedrock-paths';
import { defineProvider, type RequestFlavor } from './types';

/**
 * Amazon Bedrock: the runtime API (`bedrock-runtime.<region>.amazonaws.com`: Converse, ConverseStream,
 * InvokeModel, InvokeModelWithResponseStream, `/openai/v1/…`) and the OpenAI-compatible mantle endpoint
 * (`bedrock-mantle.<region>.api.aws/v1/…`). The host names a region, so the proxy routes
 * `/bedrock/<region>/<path>` and `/bedrock-mantle/<region>/<path>` itself (lambdas/relay/bedrock-route.ts);
 * `upstreamBaseUrl` is only the default region's. The runtime operations are not auto-detected: the AWS
 * SDK does not use fetch (and where it does, `instrumentAwsClient` already records them); the
 * OpenAI-compatible paths are (`/openai/v1/…` on the runtime host, `/v1/…` on mantle): OpenAI's client
 * pointed at Bedrock calls them through fetch.
 *
 * Request bodies: Converse (`messages`, `system`, `inferenceConfig`) and the Anthropic and Nova
 * InvokeModel bodies read as the `anthropic` flavor with the model from the path; the OpenAI-compatible
 * paths as `openai`. Its own request-shape reader (`request-shape/bedrock.ts`) is chosen by
 * `requestShapeReaderOf`, so that only the worst-case readers carry it.
 */
const BEDROCK_RUNTIME_HOST = /^bedrock-runtime\.[a-z0-9-]+\.amazonaws\.com$/;
const BEDROCK_MANTLE_HOST = /^bedrock-mantle\.[a-z0-9-]+\.api\.aws$/;

export const bedrock = defineProvider({
  id: 'bedrock',
  displayName: 'Amazon Bedrock',
  hosts: [],
  pathPrefixes: [],
  autoDetect: false,
  detectsUrl: (host, path) =>
    (BEDROCK_RUNTIME_HOST.test(host) && path.startsWith('/openai/v1/')) ||
    (BEDROCK_MANTLE_HOST.test(host) && path.startsWith('/v1/')),
  upstreamBaseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  requestFlavor: 'anthropic',
  flavorForPath: (path: string): RequestFlavor => (isBedrockOpenAIEndpoint(path) ? 'openai' : 'anthropic'),
  modelFromPath: bedrockModelFromPath,
  usage: bedrockUsage,
});
