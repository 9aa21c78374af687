/** Base error of the forecast module: raised for invalid arguments, never for unusual data. */
export class ForecastError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ForecastError';
  }
}
