/** Base error of the guardrail module. Layers never throw; only policy parsing does. */
export class GuardrailError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GuardrailError';
  }
}
