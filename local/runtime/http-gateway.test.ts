import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { APIGatewayProxyEventV2, APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';

import { API_GATEWAY_MAX_PAYLOAD_BYTES, type HttpGateway, startHttpGateway } from './http-gateway';
import { createLocalIssuer, type LocalIssuer } from './local-issuer';
import { silentLogger } from './logger';

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** node:http rather than fetch: it can send repeated headers and unnormalized paths. */
function send(
  url: string,
  options: { method?: string; path: string; headers?: OutgoingHttpHeaders; body?: Buffer | string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

function json(response: RawResponse): unknown {
  return JSON.parse(response.body.toString('utf8'));
}

describe('startHttpGateway', () => {
  let gateway: HttpGateway;
  let issuer: LocalIssuer;
  let impostor: LocalIssuer;
  let staticDir: string;
  const publicEvents: APIGatewayProxyEventV2[] = [];
  const jwtEvents: APIGatewayProxyEventV2WithJWTAuthorizer[] = [];

  beforeAll(async () => {
    staticDir = await mkdtemp(join(tmpdir(), 'spendguard-static-'));
    await mkdir(join(staticDir, 'assets'));
    await writeFile(join(staticDir, 'index.html'), '<!doctype html><div id="root"></div>');
    await writeFile(join(staticDir, 'assets', 'app-1a2b.js'), 'console.log(1)');

    gateway = await startHttpGateway({
      logger: silentLogger,
      static: { dir: staticDir },
      routes: [
        {
          method: 'ANY',
          path: '/v1/orgs/{orgId}/keys/{keyId}',
          auth: 'none',
          handler: async (event) => {
            publicEvents.push(event);
            return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
          },
        },
        { method: 'GET', path: '/v1/orgs/{orgId}', auth: 'none', handler: async () => 'param' },
        { method: 'GET', path: '/v1/orgs/me', auth: 'none', handler: async () => 'literal' },
        {
          method: 'GET',
          path: '/files/{proxy+}',
          auth: 'none',
          handler: async (event) => ({ statusCode: 200, body: event.pathParameters?.proxy }),
        },
        {
          method: 'GET',
          path: '/binary',
          auth: 'none',
          handler: async () => ({
            statusCode: 201,
            headers: { 'content-type': 'image/png', 'x-count': 3 },
            cookies: ['a=1; Path=/', 'b=2; HttpOnly'],
            body: Buffer.from([0, 1, 2, 255]).toString('base64'),
            isBase64Encoded: true,
          }),
        },
        { method: 'GET', path: '/object', auth: 'none', handler: async () => ({ hello: 'world' }) as never },
        {
          method: 'POST',
          path: '/boom',
          auth: 'none',
          handler: async () => {
            throw new Error('secret internals');
          },
        },
        {
          method: 'GET',
          path: '/v1/me',
          auth: 'jwt',
          handler: async (event) => {
            jwtEvents.push(event);
            return {
              statusCode: 200,
              body: event.requestContext.authorizer.jwt.claims['custom:orgId'] as string,
            };
          },
        },
      ],
    });
    [issuer, impostor] = await Promise.all([
      createLocalIssuer({ memory: true, issuerUrl: `${gateway.url}/local-issuer` }),
      createLocalIssuer({ memory: true, issuerUrl: `${gateway.url}/local-issuer` }),
    ]);
    gateway.addRawRoute(issuer.jwksRoute());
    gateway.setJwtVerifier(issuer.createVerifier());
  });

  afterAll(async () => {
    await gateway.close();
    await rm(staticDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    publicEvents.length = 0;
    jwtEvents.length = 0;
  });

  it('builds a payload format 2.0 event: path parameters, query, headers, cookies, text body', async () => {
    // Act
    const response = await send(gateway.url, {
      method: 'POST',
      path: '/v1/orgs/org%201/keys/k-1?a=1&a=2&b=hello%20world',
      headers: {
        'content-type': 'application/json',
        'X-Multi': ['one', 'two'],
        cookie: 'session=abc; theme=dark',
        'user-agent': 'jest',
      },
      body: '{"n":1}',
    });

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers['apigw-requestid']).toEqual(expect.any(String));
    const event = publicEvents[0];
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'ANY /v1/orgs/{orgId}/keys/{keyId}',
      rawPath: '/v1/orgs/org%201/keys/k-1',
      rawQueryString: 'a=1&a=2&b=hello%20world',
      queryStringParameters: { a: '1,2', b: 'hello world' },
      pathParameters: { orgId: 'org 1', keyId: 'k-1' },
      cookies: ['session=abc', 'theme=dark'],
      body: '{"n":1}',
      isBase64Encoded: false,
      requestContext: {
        http: {
          method: 'POST',
          path: '/v1/orgs/org%201/keys/k-1',
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: 'jest',
        },
        routeKey: 'ANY /v1/orgs/{orgId}/keys/{keyId}',
        stage: '$default',
        requestId: response.headers['apigw-requestid'],
      },
    });
    expect(event?.headers['x-multi']).toBe('one,two');
    expect(event?.headers.cookie).toBeUndefined();
    expect(event?.requestContext.time).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(Math.abs((event?.requestContext.timeEpoch ?? 0) - Date.now())).toBeLessThan(5000);
  });

  it('passes a binary body base64-encoded and leaves absent parts out', async () => {
    // Act
    await send(gateway.url, {
      method: 'PUT',
      path: '/v1/orgs/o/keys/k',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from([0, 1, 2, 255]),
    });
    await send(gateway.url, { method: 'GET', path: '/v1/orgs/o/keys/k' });

    // Assess
    expect(publicEvents[0]).toMatchObject({ body: 'AAEC/w==', isBase64Encoded: true });
    expect(publicEvents[1]?.isBase64Encoded).toBe(false);
    expect(publicEvents[1]).not.toHaveProperty('body');
    expect(publicEvents[1]).not.toHaveProperty('queryStringParameters');
    expect(publicEvents[1]).not.toHaveProperty('cookies');
  });

  it.each([
    ['/v1/orgs/me', 'literal'],
    ['/v1/orgs/org-9', 'param'],
    ['/files/a/b%20c.txt', 'a/b c.txt'],
  ])('routes %s to the most specific route', async (path, body) => {
    const response = await send(gateway.url, { path });

    expect(response.status).toBe(200);
    expect(response.body.toString()).toBe(body);
  });

  it('maps results as API Gateway does: structured, base64, cookies, string and plain objects', async () => {
    // Act
    const binary = await send(gateway.url, { path: '/binary' });
    const literal = await send(gateway.url, { path: '/v1/orgs/me' });
    const object = await send(gateway.url, { path: '/object' });

    // Assess
    expect(binary.status).toBe(201);
    expect([...binary.body]).toEqual([0, 1, 2, 255]);
    expect(binary.headers['x-count']).toBe('3');
    expect(binary.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
    expect(literal.headers['content-type']).toBe('application/json');
    expect(json(object)).toEqual({ hello: 'world' });
    expect(object.headers['content-type']).toBe('application/json');
  });

  it.each([
    ['an unknown path', 'GET', '/nope.json', 404, { message: 'Not Found' }],
    ['a known path with another method', 'DELETE', '/v1/orgs/me', 404, { message: 'Not Found' }],
    ['a handler that throws', 'POST', '/boom', 500, { message: 'Internal Server Error' }],
  ])('answers %s like API Gateway', async (_name, method, path, status, body) => {
    const response = await send(gateway.url, { method, path });

    expect(response.status).toBe(status);
    expect(json(response)).toEqual(body);
  });

  it('refuses a body over 10 MB with 413 without calling the handler', async () => {
    // Act
    const response = await send(gateway.url, {
      method: 'POST',
      path: '/v1/orgs/o/keys/k',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(API_GATEWAY_MAX_PAYLOAD_BYTES + 1, 0x20),
    });

    // Assess
    expect(response.status).toBe(413);
    expect(json(response)).toEqual({ message: 'Request Entity Too Large' });
    expect(publicEvents).toHaveLength(0);
  });

  describe('JWT-protected routes', () => {
    it('pass the verified claims as API Gateway does (string values, no scopes)', async () => {
      // Prepare
      const token = await issuer.issueIdToken({ sub: 'user-1', email: 'dev@example.com', orgId: 'org-7' });

      // Act
      const withBearer = await send(gateway.url, {
        path: '/v1/me',
        headers: { authorization: `Bearer ${token}` },
      });
      const bare = await send(gateway.url, { path: '/v1/me', headers: { authorization: token } });

      // Assess
      expect(withBearer.status).toBe(200);
      expect(withBearer.body.toString()).toBe('org-7');
      expect(bare.status).toBe(200);
      const authorizer = jwtEvents[0]?.requestContext.authorizer;
      expect(authorizer?.jwt.scopes).toBeNull();
      expect(authorizer?.jwt.claims).toMatchObject({
        sub: 'user-1',
        email: 'dev@example.com',
        'custom:orgId': 'org-7',
        token_use: 'id',
        email_verified: 'true',
        exp: expect.stringMatching(/^\d+$/),
      });
    });

    it.each([
      ['no token', async () => undefined],
      [
        'an expired token',
        async () =>
          issuer.issueIdToken({
            sub: 'u',
            email: 'e',
            orgId: 'o',
            issuedAt: new Date(Date.now() - 7200_000),
          }),
      ],
      [
        'a token for another audience',
        async () => issuer.issueIdToken({ sub: 'u', email: 'e', orgId: 'o', audience: 'other' }),
      ],
      [
        'a token with a foreign signature',
        async () => {
          const genuine = await issuer.issueIdToken({ sub: 'u', email: 'e', orgId: 'o' });
          const forged = await impostor.issueIdToken({ sub: 'u', email: 'e', orgId: 'o' });
          return `${genuine.split('.').slice(0, 2).join('.')}.${forged.split('.')[2]}`;
        },
      ],
      ['garbage', async () => 'not.a.jwt'],
    ])('reject %s with 401 before the handler runs', async (_name, makeToken) => {
      // Prepare
      const token = await makeToken();

      // Act
      const response = await send(gateway.url, {
        path: '/v1/me',
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      });

      // Assess
      expect(response.status).toBe(401);
      expect(json(response)).toEqual({ message: 'Unauthorized' });
      expect(response.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
      expect(jwtEvents).toHaveLength(0);
    });
  });

  describe('Host check (DNS rebinding, issue 15.8)', () => {
    const port = () => new URL(gateway.url).port;

    it.each(['127.0.0.1', 'localhost', 'LOCALHOST', '[::1]'])(
      'answers Host %s with the port: raw routes, API routes and the static site',
      async (name) => {
        const host = `${name}:${port()}`;
        for (const path of ['/local-issuer/.well-known/jwks.json', '/v1/orgs/me', '/']) {
          expect((await send(gateway.url, { path, headers: { host } })).status).toBe(200);
        }
      },
    );

    it.each([
      ['a rebinding name', () => `evil.example:${port()}`],
      ['a loopback name on another port', () => `127.0.0.1:${Number(port()) + 1}`],
      ['localhost without the port', () => 'localhost'],
      ['a name that ends like localhost', () => `attacker.localhost.evil.example:${port()}`],
    ])('refuses %s with 421 JSON before any route runs', async (_what, host) => {
      for (const path of ['/local-issuer/.well-known/jwks.json', '/v1/orgs/me', '/', '/v1/me']) {
        const response = await send(gateway.url, { path, headers: { host: host() } });
        expect(response.status).toBe(421);
        expect(response.headers['content-type']).toBe('application/json');
        expect(json(response)).toEqual({ message: expect.stringContaining('DNS-rebinding') });
      }
      expect(publicEvents).toHaveLength(0);
      expect(jwtEvents).toHaveLength(0);
    });
  });

  it('serves the JWKS on a raw route', async () => {
    const response = await send(gateway.url, { path: '/local-issuer/.well-known/jwks.json' });

    expect(response.status).toBe(200);
    expect(json(response)).toEqual(issuer.jwks);
  });

  it.each([
    ['a control byte in a header value', 'x-note: a\x7fb\r\n', 400, 'malformed_request'],
    ['a non-ASCII header name', 'x-n\u00e9: v\r\n', 400, 'malformed_request'],
    ['headers past the limit', `x-big: ${'a'.repeat(20_000)}\r\n`, 431, 'headers_too_large'],
  ])(
    'answers a request the HTTP parser refuses (%s) with JSON, not a bare 400',
    async (_name, header, status, code) => {
      const port = Number(new URL(gateway.url).port);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            Buffer.from(`GET /v1/health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${header}\r\n`, 'latin1'),
          );
        });
        let data = '';
        socket.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
      });
      expect(answer.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
      expect(answer).toMatch(/content-type: application\/json/);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };
      expect(body.error.code).toBe(code);
    },
  );

  describe('static site', () => {
    it.each([
      ['/', 'text/html; charset=utf-8', 'no-cache', '<!doctype html>'],
      ['/budgets/org-1', 'text/html; charset=utf-8', 'no-cache', '<!doctype html>'],
      [
        '/assets/app-1a2b.js',
        'text/javascript; charset=utf-8',
        'public, max-age=31536000, immutable',
        'console.log(1)',
      ],
    ])('serves %s', async (path, contentType, cacheControl, start) => {
      const response = await send(gateway.url, { path });

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe(contentType);
      expect(response.headers['cache-control']).toBe(cacheControl);
      expect(response.body.toString()).toMatch(new RegExp(`^${start.replace(/[.()]/g, '\\$&')}`));
    });

    it('serves the site before $default, and never under an excluded prefix (the API 404s there)', async () => {
      const withDefault = await startHttpGateway({
        port: 0,
        static: { dir: staticDir, excludePrefixes: ['/v1/'] },
        routes: [
          {
            method: 'ANY',
            path: '$default',
            auth: 'none',
            handler: (event) => ({ statusCode: 404, body: JSON.stringify({ route: event.rawPath }) }),
          },
        ],
      });
      try {
        const page = await send(withDefault.url, { path: '/budgets/org-1' });
        expect(page.body.toString()).toMatch(/^<!doctype html>/);
        const api = await send(withDefault.url, { path: '/v1/unknown' });
        expect(api.status).toBe(404);
        expect(JSON.parse(api.body.toString())).toEqual({ route: '/v1/unknown' });
      } finally {
        await withDefault.close();
      }
    });

    it.each(['/missing.png', '/%2e%2e/%2e%2e/etc/passwd', '/assets/../../secret.txt'])(
      'does not serve %s',
      async (path) => {
        const response = await send(gateway.url, { path });

        expect(response.status).toBe(404);
      },
    );
  });
});
