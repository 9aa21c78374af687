/**
 * Building blocks of the v1 response schemas. Responses are produced by the server, so these carry
 * descriptions and examples for the OpenAPI document rather than messages for callers; they are
 * strict (a handler that adds, drops or reshapes a field fails `lambdas/api/responses.test.ts`).
 * @module
 */
import { z } from 'zod';
import { isoUtcMillis } from '../common';

/** A dollar amount converted from exact integer nanos at the edge (never negative). */
export function usd(description: string, example = 12.5) {
  return z.number().min(0).meta({ description, example });
}

/** An integer amount of nano-USD (1 USD = 1e9 nanos), exact. */
export function nanos(description: string, example = 12_500_000_000) {
  return z.int().min(0).meta({ description, example });
}

/** A count (calls, keys, iterations). */
export function count(description: string, example = 42) {
  return z.int().min(0).meta({ description, example });
}

/** A UTC time as `Date#toISOString` writes it: `2026-04-09T12:00:00.000Z`. */
export function timestamp(description: string) {
  return isoUtcMillis(description);
}

/** Milliseconds since the epoch. */
export function epochMs(description: string, example = 1_775_736_000_000) {
  return z.int().min(0).meta({ description, example });
}

/** A probability, 0 to 1. */
export function probability(description: string, example = 0.12) {
  return z.number().min(0).max(1).meta({ description, example });
}
