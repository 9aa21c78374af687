/**
 * Errors of the API-key module. Only programming and configuration mistakes throw (an empty pepper,
 * a broken random source, a prefix that is not a prefix); parsing and verification never do.
 */
export class ApiKeyError extends Error {
  override readonly name: string = 'ApiKeyError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
