/**
 * Bedrock's paths: which runtime operation and model a URL names, and whether it is one of the
 * OpenAI-compatible endpoints. Kept apart from the usage parser (`core/usage/bedrock.ts`), which
 * detection does not need: the SDK's published build loads that parser only when a Bedrock call is made.
 */
/** `/model/<id>/<operation>`; the id is URL-encoded when it is an ARN. */
const MODEL_PATH =
  /\/model\/([^/?#]+)\/(?:converse-stream|converse|invoke-with-response-stream|invoke)(?=$|[?#/])/;

/**
 * The model id of a Bedrock runtime operation's path or URL (`/model/us.amazon.nova-pro-v1:0/converse` →
 * `us.amazon.nova-pro-v1:0`), or null when it names no runtime operation.
 */
export function bedrockModelFromPath(path: string | undefined): string | null {
  const id = path === undefined ? undefined : MODEL_PATH.exec(path)?.[1];
  if (id === undefined) return null;
  try {
    return decodeURIComponent(id);
  } catch {
    return id; // keep it as sent
  }
}

/**
 * Whether a Bedrock URL or path is an OpenAI-compatible endpoint (`/openai/v1/…` on bedrock-runtime,
 * `/v1/…` on bedrock-mantle: chat completions, responses) rather than a runtime operation.
 */
export function isBedrockOpenAIEndpoint(url: string | undefined): boolean {
  return url !== undefined && bedrockModelFromPath(url) === null && /\/(?:openai\/)?v1\//.test(url);
}
