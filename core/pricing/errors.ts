/**
 * Errors of the pricing module. One base class, subclasses set `name` and keep the `cause`.
 *
 * Pricing an event never throws (see `calculateCost`); these errors come from configuration-time
 * calls: building a registry from malformed price data, compiling invalid negotiated rates, or
 * converting an amount that does not fit the integer range.
 */
export class PricingError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PricingError';
  }
}

/** The price dataset (bundled or a fetched snapshot) cannot be compiled. */
export class PriceDataError extends PricingError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PriceDataError';
  }
}

/** An organization's negotiated rates are invalid (negative, non-finite, too many decimals). */
export class OrgRatesError extends PricingError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OrgRatesError';
  }
}

/** An amount is not finite or does not fit the exact integer range of a JavaScript number. */
export class MoneyRangeError extends PricingError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MoneyRangeError';
  }
}
