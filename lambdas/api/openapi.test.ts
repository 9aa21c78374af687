import { z } from 'zod';
import { API_ROUTES } from '../../lib/api';
import { ERROR_CODES, errorBodySchema, type ForecastViewBody } from '../../core/schemas/api';
import type { ForecastView } from '../forecast/tasks';
import { INTERNAL_ERROR, httpErrors } from '../shared/http';
import { ROUTES } from './handler';
import {
  COMPONENT_SCHEMAS,
  OTHER_OPERATIONS,
  V1_OPERATIONS,
  buildOpenApiDocument,
  type OpenApiDocument,
  type OpenApiOperation,
  type OperationSpec,
} from './openapi';
import type { Route } from './routes/types';

const doc = buildOpenApiDocument({ version: '1.2.3', routes: ROUTES });
const ALL: Array<[string, OperationSpec]> = [
  ...Object.entries(OTHER_OPERATIONS),
  ...Object.entries(V1_OPERATIONS),
];

function operationOf(d: OpenApiDocument, routeKey: string): OpenApiOperation | undefined {
  const [method, path] = routeKey.split(' ') as [string, string];
  return d.paths[path]?.[method.toLowerCase()];
}

/** Every node of a JSON value with its JSON pointer. */
function* walk(value: unknown, pointer = '#'): Generator<[string, Record<string, unknown>]> {
  if (typeof value !== 'object' || value === null) return;
  if (!Array.isArray(value)) yield [pointer, value as Record<string, unknown>];
  for (const [k, v] of Object.entries(value))
    yield* walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
}

function resolvePointer(ref: string): unknown {
  let node: unknown = doc;
  for (const raw of ref.replace(/^#\//, '').split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the OpenAPI document: coverage', () => {
  const expected = [
    ...Object.keys(ROUTES),
    'POST /api/ingest',
    'POST /v1/events',
    'POST /api/guardrails/enforce',
  ];

  it('lists GET /v1/openapi.json as a public route', () => {
    expect(ROUTES['GET /v1/openapi.json']?.auth).toBe('public');
  });

  it.each(expected)('%s is documented with a summary and a success response with a body', (routeKey) => {
    const op = operationOf(doc, routeKey);
    expect(op).toBeDefined();
    expect(op!.summary.length).toBeGreaterThan(0);
    const success = Object.keys(op!.responses).filter((s) => /^2\d\d$/.test(s));
    expect(success.length).toBeGreaterThan(0);
    for (const s of success)
      expect(op!.responses[s]).toHaveProperty(['content', 'application/json', 'schema', '$ref']);
    expect(op!.responses['500']).toEqual({ $ref: '#/components/responses/InternalError' });
  });

  it('documents exactly these operations, no more', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual([...expected].sort());
  });

  it.each(ALL.filter(([, spec]) => spec.body))('%s documents its request body', (routeKey, spec) => {
    const body = operationOf(doc, routeKey)!.requestBody!;
    expect(body.required).toBe(true);
    expect(body.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${spec.body}` });
  });

  it.each(ALL.filter(([, spec]) => spec.query))('%s documents each query parameter', (routeKey, spec) => {
    const params = operationOf(doc, routeKey)!.parameters!;
    expect(params.map((p) => p.name)).toEqual(Object.keys(spec.query!.shape));
    expect(params.every((p) => p.in === 'query' && p.required === false)).toBe(true);
  });

  it('documents the path parameter of DELETE /v1/keys/{publicId}', () => {
    expect(operationOf(doc, 'DELETE /v1/keys/{publicId}')!.parameters).toEqual([
      expect.objectContaining({ name: 'publicId', in: 'path', required: true }),
    ]);
  });

  it.each<[string, string[]]>([
    ['POST /api/ingest', ['200', '400', '401', '413', '500', '503']],
    ['POST /v1/events', ['200', '400', '401', '413', '500', '503']],
    ['POST /api/guardrails/enforce', ['200', '400', '401', '403', '413', '500']],
    ['GET /v1/health', ['200', '503']],
    ['GET /v1/ledger', ['200', '400', '401', '403', '500']],
    ['POST /v1/keys', ['201', '400', '401', '403', '500']],
    ['DELETE /v1/keys/{publicId}', ['200', '400', '401', '403', '404', '500']],
  ])('%s documents the statuses of docs/api.md', (routeKey, statuses) => {
    expect(Object.keys(operationOf(doc, routeKey)!.responses).sort()).toEqual(
      expect.arrayContaining(statuses.sort()),
    );
  });

  it('documents Retry-After on 503', () => {
    expect(doc.components.responses.Unavailable!.headers).toHaveProperty('Retry-After');
  });

  it('takes each v1 operation’s security from ROUTES[…].auth', () => {
    const byAuth: Record<Route['auth'], unknown> = {
      public: [],
      person: [{ IdToken: [] }],
      any: [{ ServiceApiKey: [] }, { IdToken: [] }],
    };
    for (const [routeKey, route] of Object.entries(ROUTES)) {
      const security = route.programsOnly ? [{ ServiceApiKey: [] }] : byAuth[route.auth];
      expect([routeKey, operationOf(doc, routeKey)!.security]).toEqual([routeKey, security]);
    }
    // The lease routes are for programs: a key only (the route refuses a person with 403).
    expect(operationOf(doc, 'POST /v1/budget/lease')!.security).toEqual([{ ServiceApiKey: [] }]);
    expect(operationOf(doc, 'POST /v1/events')!.security).toEqual([{ ServiceApiKey: [] }]);
    expect(operationOf(doc, 'POST /api/guardrails/enforce')!.security).toEqual([{ IdToken: [] }]);
    const ingest = operationOf(doc, 'POST /api/ingest')!;
    expect(ingest.security).toEqual([]);
    expect(ingest.description).toMatch(/`apiKey` in the JSON body/);
  });

  it('agrees with the deployed HTTP API (lib/api.ts): same operations, JWT authorizer where only an ID token is accepted', () => {
    const deployed = API_ROUTES.map((r) => [`${r.method} ${r.path}`, r.auth === 'person'] as const);
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(
        ([m, op]) =>
          [`${m.toUpperCase()} ${path}`, JSON.stringify(op.security) === '[{"IdToken":[]}]'] as const,
      ),
    );
    expect([...documented].sort()).toEqual([...deployed].sort());
  });

  it('declares the security schemes', () => {
    expect(doc.components.securitySchemes).toEqual({
      ServiceApiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Service-API-Key' }),
      IdToken: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
    });
  });

  it('refuses to build when a route has no entry, naming it', () => {
    const routes = ROUTES as Record<string, Route>;
    routes['GET /v1/new'] = { auth: 'person', handle: async () => ({ statusCode: 200 }) };
    try {
      expect(() => buildOpenApiDocument({ version: 'x', routes: ROUTES })).toThrow(
        /no OpenAPI entry for GET \/v1\/new/,
      );
    } finally {
      delete routes['GET /v1/new'];
    }
  });

  it('passes servers and version through', () => {
    const d = buildOpenApiDocument({
      version: '9',
      routes: ROUTES,
      servers: [{ url: 'https://api.example.com' }],
    });
    expect(d.info.version).toBe('9');
    expect(d.servers).toEqual([{ url: 'https://api.example.com' }]);
    expect(doc).not.toHaveProperty('servers');
  });
});

describe('the OpenAPI document: examples', () => {
  /** Every media type with its component schema and examples. */
  const bodies: Array<[string, string, unknown]> = [];
  for (const [pointer, node] of walk(doc)) {
    const schema = node.schema as { $ref?: string } | undefined;
    if (!schema?.$ref?.startsWith('#/components/schemas/') || pointer.includes('/components/schemas/'))
      continue;
    const name = schema.$ref.slice('#/components/schemas/'.length);
    if ('example' in node) bodies.push([pointer, name, node.example]);
    for (const [key, ex] of Object.entries((node.examples ?? {}) as Record<string, { value: unknown }>)) {
      bodies.push([`${pointer}/examples/${key}`, name, ex.value]);
    }
  }

  it('gives every request and response body an example', () => {
    for (const [pointer, node] of walk(doc)) {
      if (!pointer.endsWith('/application~1json')) continue;
      expect([pointer, 'example' in node || 'examples' in node]).toEqual([pointer, true]);
    }
    expect(bodies.length).toBeGreaterThanOrEqual(30);
  });

  it.each(bodies)('%s validates against %s', (_pointer, name, example) => {
    const schema = COMPONENT_SCHEMAS[name as keyof typeof COMPONENT_SCHEMAS];
    expect(schema).toBeDefined();
    expect(issuesOf(schema, example)).toEqual([]);
  });

  it.each(ALL.filter(([, spec]) => spec.query || spec.path))(
    '%s: the parameter examples together validate against the query or path schema',
    (routeKey, spec) => {
      const params = operationOf(doc, routeKey)!.parameters!;
      for (const [where, schema] of [
        ['query', spec.query],
        ['path', spec.path],
      ] as const) {
        if (!schema) continue;
        const values = Object.fromEntries(
          params.filter((p) => p.in === where).map((p) => [p.name, p.example]),
        );
        expect(issuesOf(schema, values)).toEqual([]);
        // As they arrive: every query value is a string.
        expect(
          issuesOf(schema, Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]))),
        ).toEqual([]);
      }
    },
  );

  it('shows both branches of the enforcement request', () => {
    const media = operationOf(doc, 'POST /api/guardrails/enforce')!.requestBody!.content['application/json'];
    expect(Object.keys(media.examples!)).toEqual(['EnforcePushRequest', 'EnforceClearRequest']);
  });
});

describe('the OpenAPI document: structure (OpenAPI 3.1)', () => {
  it('has the required top-level members', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: '1.2.3' }));
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it('every $ref resolves to a component', () => {
    const refs = [...walk(doc)].flatMap(([, node]) => (typeof node.$ref === 'string' ? [node.$ref] : []));
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/(schemas|responses)\/[A-Za-z0-9]+$/);
      expect([ref, resolvePointer(ref) !== undefined]).toEqual([ref, true]);
    }
  });

  it('component schemas are bare JSON Schema 2020-12 (no $schema, $id, zod formats)', () => {
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect([name, '$schema' in schema, '$id' in schema]).toEqual([name, false, false]);
    }
    const formats = [...walk(doc.components.schemas)].flatMap(([, n]) =>
      typeof n.format === 'string' ? [n.format] : [],
    );
    expect(new Set(formats)).toEqual(new Set(['date-time', 'uuid']));
    expect([...walk(doc)].some(([, n]) => 'example' in n && 'type' in n)).toBe(false);
  });

  it('every component schema is used, and every one is a zod schema of COMPONENT_SCHEMAS', () => {
    const used = new Set([...walk(doc)].flatMap(([, n]) => (typeof n.$ref === 'string' ? [n.$ref] : [])));
    for (const name of Object.keys(doc.components.schemas)) {
      expect([name, used.has(`#/components/schemas/${name}`)]).toEqual([name, true]);
    }
    expect(Object.keys(doc.components.schemas).sort()).toEqual(Object.keys(COMPONENT_SCHEMAS).sort());
  });

  it('every operation has an operationId (unique), tags that exist, responses with descriptions', () => {
    const ids = new Set<string>();
    const tags = new Set(doc.tags.map((t) => t.name));
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path).toMatch(/^\//);
      for (const [method, op] of Object.entries(item)) {
        expect(['get', 'put', 'post', 'delete']).toContain(method);
        expect(ids.has(op.operationId)).toBe(false);
        ids.add(op.operationId);
        expect(op.tags.every((t) => tags.has(t))).toBe(true);
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        for (const [status, r] of Object.entries(op.responses)) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect('$ref' in r || typeof r.description === 'string').toBe(true);
        }
        for (const requirement of op.security) {
          for (const scheme of Object.keys(requirement))
            expect(doc.components.securitySchemes).toHaveProperty(scheme);
        }
        // Each path template parameter is declared.
        for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
          expect(op.parameters?.find((p) => p.in === 'path' && p.name === name)?.required).toBe(true);
        }
      }
    }
  });

  it('documents every error code the handlers produce', () => {
    const codes = [
      httpErrors.badRequest('x'),
      httpErrors.unauthorized(),
      httpErrors.forbidden(),
      httpErrors.scopeMissing('x'),
      httpErrors.roleRequired('x'),
      httpErrors.notFound(),
      httpErrors.conflict('x'),
      httpErrors.tooLarge('x'),
      httpErrors.tooManyRequests('x', 1),
      httpErrors.unavailable('x', 1),
    ].map((e) => e.code);
    expect([...codes, 'internal_error'].sort()).toEqual([...ERROR_CODES].sort());
    expect(errorBodySchema.parse(JSON.parse(INTERNAL_ERROR.body!))).toBeDefined();
  });
});

// The forecast is stored as `unknown`: at least make its documented shape and the writer's type agree
// (ForecastView types `horizon` and `budget` as plain strings; the schema names their values).
type Assert<T extends true> = T;
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type HorizonOf<T extends { horizons: unknown[] }> = T['horizons'][number];
export type ForecastShapeAgrees = [
  Assert<Mutual<ForecastView['forecast'], ForecastViewBody['forecast']>>,
  Assert<Mutual<ForecastView['fan'], ForecastViewBody['fan']>>,
  Assert<Mutual<keyof HorizonOf<ForecastView>, keyof HorizonOf<ForecastViewBody>>>,
  Assert<[ForecastViewBody] extends [ForecastView] ? true : false>,
];
