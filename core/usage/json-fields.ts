/** Typed reads of untrusted JSON values: every provider parser goes through these, never through `any`. */

/** A JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

/** The value as a JSON object, or undefined. */
export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

/** The value as a string, or undefined (empty strings count as absent). */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The value as a token count (a finite number ≥ 0), or undefined. */
export function asCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The value as a finite number (a provider-reported cost may be any finite number), or undefined. */
export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A nested field: `field(o, 'a', 'b')` is `o.a.b` when every step is an object. */
export function field(value: unknown, ...path: string[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    const obj = asObject(current);
    if (obj === undefined) return undefined;
    current = obj[key];
  }
  return current;
}

/** JSON.parse of a text or of its UTF-8 bytes, reporting failure instead of throwing. */
export function tryParseJson(text: string | Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return {
      ok: true,
      value: JSON.parse(typeof text === 'string' ? text : new TextDecoder().decode(text)) as unknown,
    };
  } catch {
    return { ok: false };
  }
}

/** The text (or its UTF-8 bytes) parsed as a JSON object; undefined when not valid JSON or not an object. */
export function parseJsonObject(text: string | Uint8Array): JsonObject | undefined {
  const parsed = tryParseJson(text);
  return parsed.ok ? asObject(parsed.value) : undefined;
}
