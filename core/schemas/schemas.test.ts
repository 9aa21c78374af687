import fc from 'fast-check';
import { z } from 'zod';
import * as schemas from './index';

/** Every schema exported by the module. */
const all: Array<[string, z.ZodType]> = [];
for (const [name, value] of Object.entries(schemas) as Array<[string, unknown]>) {
  if (value instanceof z.ZodType) all.push([name, value]);
}

describe('all wire schemas', () => {
  it('are all found', () => {
    expect(all.length).toBeGreaterThanOrEqual(20);
  });

  it.each(all)('%s: safeParse never throws, whatever the input', (_name, schema) => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.anything({ withBoxedValues: true, withNullPrototype: true })),
        (input) => {
          const r = schema.safeParse(input);
          expect(typeof r.success).toBe('boolean');
          if (!r.success) expect(schemas.formatZodIssues(r.error).length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each(all)('%s: converts to JSON Schema (for the OpenAPI document)', (_name, schema) => {
    const json = z.toJSONSchema(schema, { io: 'input' });
    expect(json).toHaveProperty('$schema');
  });

  it('carry descriptions on their fields', () => {
    const json = z.toJSONSchema(schemas.ingestRequestSchema, { io: 'input' }) as unknown as {
      description?: string;
      properties: { events: { items: { properties: Record<string, { description?: string }> } } };
    };
    expect(json.description).toBe('Body of POST /api/ingest.');
    expect(json.properties.events.items.properties.model!.description).toMatch(/Model identifier/);
  });
});
