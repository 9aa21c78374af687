import { Sha256 } from '@aws-crypto/sha256-js';
import {
  OTLPExporterError,
  type ExportResponse,
  type IExporterTransport,
} from '@opentelemetry/otlp-exporter-base';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

/** What {@link SigV4Transport} needs: where, as which service, with which credentials. */
export interface SigV4TransportOptions {
  /** The full OTLP URL, e.g. `https://xray.eu-west-1.amazonaws.com/v1/traces`. */
  url: string;
  /** SigV4 signing name: `xray` for traces, `monitoring` for metrics. */
  service: string;
  region: string;
  /** The function's credentials (its role in Lambda). */
  credentials: AwsCredentialIdentityProvider;
  /** `application/x-protobuf` or `application/json`: the serializer's format. */
  contentType: string;
  /** Replaced in tests only. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** Statuses an OTLP client retries (OTLP/HTTP specification: 429, 502, 503, 504). */
const RETRYABLE = new Set([429, 502, 503, 504]);

/**
 * The signing seam of the OTLP exporters: the maintained exporter serializes (protobuf or JSON), this
 * signs the bytes with SigV4 and posts them. CloudWatch's OTLP endpoints accept nothing else, and the
 * exporters' header hook cannot sign because it never sees the body. Never throws: every outcome is an
 * {@link ExportResponse}, which the exporter's delegate retries or reports.
 */
export class SigV4Transport implements IExporterTransport {
  private readonly signer: SignatureV4;
  private readonly url: URL;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: SigV4TransportOptions) {
    this.url = new URL(options.url);
    this.signer = new SignatureV4({
      service: options.service,
      region: options.region,
      credentials: options.credentials,
      sha256: Sha256,
    });
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async send(data: Uint8Array, timeoutMillis: number): Promise<ExportResponse> {
    try {
      const signed = await this.signer.sign({
        method: 'POST',
        protocol: this.url.protocol,
        hostname: this.url.hostname,
        ...(this.url.port ? { port: Number(this.url.port) } : {}),
        path: this.url.pathname,
        query: {},
        headers: { host: this.url.host, 'content-type': this.options.contentType },
        body: data,
      });
      const { host: _host, ...headers } = signed.headers;
      const res = await this.fetch(this.url, {
        method: 'POST',
        headers,
        body: data,
        signal: AbortSignal.timeout(timeoutMillis),
      });
      const body = new Uint8Array(await res.arrayBuffer());
      if (res.ok) return { status: 'success', data: body };
      const error = new OTLPExporterError(res.statusText, res.status, new TextDecoder().decode(body));
      if (!RETRYABLE.has(res.status)) return { status: 'failure', error };
      const after = Number(res.headers.get('retry-after'));
      return {
        status: 'retryable',
        error,
        ...(Number.isFinite(after) && after > 0 ? { retryInMillis: after * 1000 } : {}),
      };
    } catch (err) {
      return { status: 'failure', error: err instanceof Error ? err : new Error(String(err)) };
    }
  }

  shutdown(): void {
    // Nothing pooled: fetch owns its connections.
  }
}
