import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { otelSettingsFromEnvironment, sigV4ServiceOf } from './otel-settings';
import { SigV4Transport } from './sigv4-transport';

const credentials = async () => ({
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
});

interface Seen {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  path: string;
}

async function receiver(status: number, extra: Record<string, string> = {}) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks), path: req.url ?? '' });
      res.writeHead(status, extra);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  return { seen, url, close: () => new Promise((r) => server.close(r)) };
}

describe('SigV4Transport', () => {
  it('posts the exporter’s bytes signed for the service, region and body, verifiable by re-signing', async () => {
    const r = await receiver(200);
    const transport = new SigV4Transport({
      url: r.url,
      service: 'xray',
      region: 'eu-west-1',
      credentials,
      contentType: 'application/x-protobuf',
    });
    const body = new Uint8Array([10, 3, 1, 2, 3]);
    expect(await transport.send(body, 5000)).toMatchObject({ status: 'success' });
    await r.close();
    const [got] = r.seen;
    expect(got!.path).toBe('/v1/traces');
    expect(Buffer.compare(got!.body, Buffer.from(body))).toBe(0);
    const auth = got!.headers.authorization!;
    const date = got!.headers['x-amz-date'] as string;
    expect(auth).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/${date.slice(0, 8)}/eu-west-1/xray/aws4_request`),
    );
    // The signature covers the body: re-signing what arrived at the same instant gives the same header,
    // and re-signing another body does not.
    const resign = async (bytes: Uint8Array) => {
      const signer = new SignatureV4({ service: 'xray', region: 'eu-west-1', credentials, sha256: Sha256 });
      const url = new URL(r.url);
      const signed = await signer.sign(
        {
          method: 'POST',
          protocol: url.protocol,
          hostname: url.hostname,
          port: Number(url.port),
          path: url.pathname,
          query: {},
          headers: { host: url.host, 'content-type': 'application/x-protobuf' },
          body: bytes,
        },
        {
          signingDate: new Date(
            `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
          ),
        },
      );
      return signed.headers.authorization;
    };
    expect(await resign(new Uint8Array(got!.body))).toBe(auth);
    expect(await resign(new Uint8Array([9]))).not.toBe(auth);
  });

  it.each([
    [429, 'retryable'],
    [503, 'retryable'],
    [400, 'failure'],
    [403, 'failure'],
  ])('answers %i as %s (OTLP/HTTP retry rules), never throwing', async (status, outcome) => {
    const r = await receiver(status, { 'retry-after': '2' });
    const transport = new SigV4Transport({
      url: r.url,
      service: 'monitoring',
      region: 'us-east-1',
      credentials,
      contentType: 'application/json',
    });
    const res = await transport.send(new Uint8Array([1]), 5000);
    await r.close();
    expect(res.status).toBe(outcome);
    if (res.status === 'retryable') expect(res.retryInMillis).toBe(2000);
  });

  it('reports an unreachable endpoint and failing credentials as failures, not exceptions', async () => {
    const down = new SigV4Transport({
      url: 'http://127.0.0.1:1/v1/traces',
      service: 'xray',
      region: 'us-east-1',
      credentials,
      contentType: 'application/json',
    });
    expect((await down.send(new Uint8Array([1]), 2000)).status).toBe('failure');
    const noCredentials = new SigV4Transport({
      url: 'http://127.0.0.1:1/v1/traces',
      service: 'xray',
      region: 'us-east-1',
      credentials: () => Promise.reject(new Error('no role')),
      contentType: 'application/json',
    });
    expect(await noCredentials.send(new Uint8Array([1]), 2000)).toMatchObject({
      status: 'failure',
      error: { message: 'no role' },
    });
  });
});

describe('otelSettingsFromEnvironment', () => {
  it('is off without an endpoint, and with OTEL_SDK_DISABLED', () => {
    expect(otelSettingsFromEnvironment({})).toMatchObject({ traces: null, metrics: null });
    expect(
      otelSettingsFromEnvironment({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_SDK_DISABLED: 'true',
      }),
    ).toMatchObject({ traces: null, metrics: null });
  });

  it('appends the signal paths to the shared endpoint, and takes per-signal endpoints and protocols as given', () => {
    expect(
      otelSettingsFromEnvironment({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://monitoring.eu-west-1.amazonaws.com/v1/metrics',
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
      }),
    ).toMatchObject({
      traces: { url: 'http://127.0.0.1:4318/v1/traces', protocol: 'http/json' },
      metrics: { url: 'https://monitoring.eu-west-1.amazonaws.com/v1/metrics', protocol: 'http/protobuf' },
      sigV4Region: null,
    });
  });

  it('reads the batch and interval variables and reports bad values and protocols instead of failing', () => {
    const s = otelSettingsFromEnvironment({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_BSP_SCHEDULE_DELAY: '250',
      OTEL_METRIC_EXPORT_INTERVAL: 'soon',
    });
    expect(s).toMatchObject({
      spanScheduleDelayMs: 250,
      metricExportIntervalMs: 60_000,
      traces: { protocol: 'http/protobuf' },
    });
    expect(s.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('OTEL_EXPORTER_OTLP_PROTOCOL=grpc'),
        expect.stringContaining('OTEL_METRIC_EXPORT_INTERVAL=soon'),
      ]),
    );
  });

  it('signs in the function’s region when the CDK asks, with the service named by the host', () => {
    expect(
      otelSettingsFromEnvironment({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://xray.eu-west-1.amazonaws.com/v1/traces',
        SPENDGUARD_OTEL_SIGV4: 'true',
        AWS_REGION: 'eu-west-1',
      }).sigV4Region,
    ).toBe('eu-west-1');
    expect(sigV4ServiceOf('https://xray.eu-west-1.amazonaws.com/v1/traces')).toBe('xray');
    expect(sigV4ServiceOf('https://monitoring.eu-west-1.amazonaws.com/v1/metrics')).toBe('monitoring');
  });
});
