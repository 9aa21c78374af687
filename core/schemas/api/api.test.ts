import fc from 'fast-check';
import { z } from 'zod';
import { formatZodIssues } from '../issues';
import * as api from './index';

/** Every schema exported by core/schemas/api. */
const all: Array<[string, z.ZodType]> = Object.entries(api).flatMap(
  ([name, value]): Array<[string, z.ZodType]> => (value instanceof z.ZodType ? [[name, value]] : []),
);

describe('the v1 API schemas', () => {
  it('are all found', () => {
    expect(all.length).toBeGreaterThanOrEqual(25);
  });

  it.each(all)('%s converts to JSON Schema, as input and as output', (_name, schema) => {
    for (const io of ['input', 'output'] as const) {
      expect(z.toJSONSchema(schema, { io, unrepresentable: 'throw' })).toHaveProperty('$schema');
    }
  });

  it.each(all)(
    '%s: every example in its metadata is valid for the schema that carries it',
    (_name, schema) => {
      const invalid: string[] = [];
      let examples = 0;
      z.toJSONSchema(schema, {
        io: 'output',
        override: ({ zodSchema, jsonSchema, path }) => {
          if (!('example' in jsonSchema)) return;
          examples++;
          const r = z.safeParse(zodSchema, jsonSchema.example);
          if (!r.success) invalid.push(`${path.join('/')}: ${JSON.stringify(formatZodIssues(r.error))}`);
        },
      });
      expect(invalid).toEqual([]);
      expect(examples).toBeGreaterThan(0);
    },
  );

  it.each(
    all.filter(
      ([name]) => /Response|Page|Status|View|^tripSchema$/.test(name) && name !== 'openApiDocumentSchema',
    ),
  )('%s is strict: an undocumented member fails', (_name, schema) => {
    const json = z.toJSONSchema(schema, { io: 'output' });
    // A response that is one of several shapes (GET /v1/budget by key scope) is strict in each of them.
    const shapes = (json.anyOf as Array<{ additionalProperties?: unknown }> | undefined) ?? [json];
    expect(shapes.map((shape) => shape.additionalProperties)).toEqual(shapes.map(() => false));
  });
});

describe('ledgerQuerySchema (moved from lambdas/api/routes/ledger.ts, same rules)', () => {
  it('defaults limit to 50 and coerces the query string', () => {
    expect(api.ledgerQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(api.ledgerQuerySchema.parse({ limit: '500', source: 'proxy' })).toEqual({
      limit: 500,
      source: 'proxy',
    });
  });

  it.each([
    { limit: '0' },
    { limit: '501' },
    { limit: '2.5' },
    { source: 'fax' },
    { from: 'yesterday' },
    { fromm: 'x' },
  ])('refuses %j', (query) => {
    expect(api.ledgerQuerySchema.safeParse(query).success).toBe(false);
  });
});

describe('ledgerQuerySchema time window', () => {
  // Around one instant, so that equal and 1 ms apart are drawn often; offsets move the written form only.
  const BASE = Date.parse('2026-11-26T09:00:00.000Z');
  const instant = fc.integer({ min: -3, max: 3 }).map((ms) => BASE + ms);
  const written = (ms: number, offsetHours: number) => {
    const local = new Date(ms + offsetHours * 3_600_000).toISOString().slice(0, 23);
    if (offsetHours === 0) return `${local}Z`;
    const hh = String(Math.abs(offsetHours)).padStart(2, '0');
    return `${local}${offsetHours > 0 ? '+' : '-'}${hh}:00`;
  };

  it('accepts from ≤ to and refuses from > to naming `to`, whatever the offsets', () => {
    fc.assert(
      fc.property(
        instant,
        instant,
        fc.integer({ min: -12, max: 14 }),
        fc.integer({ min: -12, max: 14 }),
        (f, t, fo, to) => {
          const r = api.ledgerQuerySchema.safeParse({ from: written(f, fo), to: written(t, to) });
          expect(r.success).toBe(f <= t);
          if (!r.success) {
            expect(formatZodIssues(r.error)).toEqual([{ path: 'to', message: 'must not be before from' }]);
          }
        },
      ),
    );
  });
});

describe('tripsQuerySchema', () => {
  it('takes a limit of 1 to 200, 50 by default', () => {
    expect(api.tripsQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(api.tripsQuerySchema.safeParse({ limit: '201' }).success).toBe(false);
  });
});

describe('createKeyRequestSchema', () => {
  it('trims the name and refuses an empty one', () => {
    expect(api.createKeyRequestSchema.parse({ name: '  ci ' })).toEqual({ name: 'ci' });
    expect(api.createKeyRequestSchema.safeParse({ name: '   ' }).success).toBe(false);
  });
});

describe('errorBodySchema', () => {
  it('has the shape of every error body', () => {
    const body = {
      error: { code: 'invalid_request', message: 'm', problems: [{ path: 'limit', message: 'x' }] },
    };
    expect(api.errorBodySchema.parse(body)).toEqual(body);
    expect(api.errorBodySchema.safeParse({ error: { code: 'teapot', message: 'm' } }).success).toBe(false);
  });
});
