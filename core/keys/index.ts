/**
 * API keys: format, generation, parsing, redaction (pure) and the server's HMACs (node:crypto).
 * @module
 */
export {
  API_KEY_LENGTH,
  API_KEY_PATTERN,
  API_KEY_PREFIX,
  API_KEY_PREFIX_PATTERN,
  PUBLIC_ID_LENGTH,
  SECRET_LENGTH,
  generateApiKey,
  isApiKeyPrefix,
  parseApiKey,
  redactApiKey,
  redactApiKeysIn,
  type ApiKeyParseFailure,
  type GeneratedApiKey,
  type ParsedApiKey,
  type RandomBytes,
} from './api-key';
export { ApiKeyError } from './errors';
export { constantTimeEqual, flagKeyFor, hashApiKey, verifyApiKey, type Pepper } from './hashing';
export { KEY_SCOPES, LEASE_SCOPES, grantsAny, isKeyScope, scopesOf, type KeyScope } from './scopes';
