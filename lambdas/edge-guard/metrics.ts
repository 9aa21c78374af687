/**
 * Counters for the request path (guard and relay), written as CloudWatch Embedded Metric Format lines.
 * Lambda@Edge logs land in the CloudWatch Logs of the edge region that ran the function
 * (`/aws/lambda/us-east-1.<function>` in that region), where EMF lines become metrics too.
 * Hand-written rather than Powertools Metrics: a counter is one line, and the edge bundle stays small.
 */

/** What the request path counts. */
export type MetricName =
  /** A request forwarded without a flag check (store, secret, config or item failure). Dimension `Reason`. */
  | 'GuardFailOpen'
  /** A request answered 429 / 401 at the guard. Dimension `Reason`: `suspended`, `throttled`, `unauthorized`. */
  | 'GuardRejected'
  /** The relay forwarded without verifying the key (store unreachable). */
  | 'RelayUnverified'
  /** The relay could not record a request's event. Dimension `Reason`. */
  | 'RelayEventFailed'
  /** The upstream could not be reached (502 to the client). */
  | 'RelayUpstreamError'
  /** Budget admission let a call through unchecked (lease store unreachable or slow). docs/admission.md */
  | 'AdmissionFailOpen'
  /** Under a hard cap the lease store could not answer: a retryable 429, never a call without a reservation. */
  | 'AdmissionStoreUnavailable'
  /** Budget admission answered 429 `budget_exceeded`. Dimension `Waited`: whether it waited first. */
  | 'AdmissionRefused'
  /**
   * A forwarded call whose usage the relay could not read (over the size bound, undecodable, not JSON) or
   * only estimated (a stream without a usage frame): its reservation was settled at the worst case.
   * Dimension `Reason`: `unread`, `estimated`, or `abandoned` (the client left before the answer). docs/proxy.md
   */
  | 'RelayUsageUnread'
  /** The relay refused a request for a kill flag (the edge's lookup, repeated at the origin). Dimension `Reason`. */
  | 'RelayFlagRefused'
  /** The relay's in-line loop check began a hold (issue 19.6). Dimension `Scope`. docs/guardrails.md */
  | 'RelayLoopHold'
  /** The relay refused a call under an in-line loop hold (the flag's 429). Dimension `Scope`. */
  | 'RelayLoopRefused'
  /** The shared loop run could not be added to (store error or over 300 ms): the container's own count decided. */
  | 'RelayLoopSharedFailed';

/** Where counters go: EMF lines in Lambda, memory in tests and in the local proxy. */
export interface MetricsSink {
  count(name: MetricName, dimensions?: Readonly<Record<string, string>>, value?: number): void;
}

/** Options of {@link EmfMetrics}. */
export interface EmfMetricsOptions {
  /** @default 'Spendguard' */
  readonly namespace?: string;
  /** Value of the `Service` dimension, e.g. `edge-guard`, `relay`. */
  readonly service: string;
  /** Writes one log line. @default one `process.stdout.write` */
  readonly write?: (line: string) => void;
  readonly now?: () => number;
}

/**
 * One EMF line per count: rare events (fail-open, rejections) need no buffering, and a line written
 * at once survives a container that is frozen or recycled right after the request.
 *
 * @example
 * new EmfMetrics({ service: 'edge-guard' }).count('GuardFailOpen', { Reason: 'store_error' });
 * // {"_aws":{"Timestamp":…,"CloudWatchMetrics":[{"Namespace":"Spendguard","Dimensions":[["Service","Reason"]],
 * //   "Metrics":[{"Name":"GuardFailOpen","Unit":"Count"}]}]},"Service":"edge-guard","Reason":"store_error","GuardFailOpen":1}
 */
export class EmfMetrics implements MetricsSink {
  private readonly namespace: string;
  private readonly write: (line: string) => void;
  private readonly now: () => number;

  constructor(private readonly opts: EmfMetricsOptions) {
    this.namespace = opts.namespace ?? 'Spendguard';
    this.write = opts.write ?? ((line) => void process.stdout.write(line + '\n'));
    this.now = opts.now ?? Date.now;
  }

  count(name: MetricName, dimensions: Readonly<Record<string, string>> = {}, value = 1): void {
    try {
      const dims = { Service: this.opts.service, ...dimensions };
      this.write(
        JSON.stringify({
          _aws: {
            Timestamp: this.now(),
            CloudWatchMetrics: [
              {
                Namespace: this.namespace,
                Dimensions: [Object.keys(dims)],
                Metrics: [{ Name: name, Unit: 'Count' }],
              },
            ],
          },
          ...dims,
          [name]: value,
        }),
      );
    } catch {
      // metrics never break the request path
    }
  }
}

/** Counts in memory: `get('GuardFailOpen', { Reason: 'store_error' })`, or without dimensions for the sum. */
export class MemoryMetrics implements MetricsSink {
  private readonly counts = new Map<string, number>();

  count(name: MetricName, dimensions: Readonly<Record<string, string>> = {}, value = 1): void {
    const key = MemoryMetrics.key(name, dimensions);
    this.counts.set(key, (this.counts.get(key) ?? 0) + value);
  }

  /** The count for exactly these dimensions; without `dimensions`, the sum over all of them. */
  get(name: MetricName, dimensions?: Readonly<Record<string, string>>): number {
    if (dimensions !== undefined) return this.counts.get(MemoryMetrics.key(name, dimensions)) ?? 0;
    let total = 0;
    for (const [key, n] of this.counts) if (key === name || key.startsWith(`${name}|`)) total += n;
    return total;
  }

  /** Every counter, keyed `Name|Dim=value,…`. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  reset(): void {
    this.counts.clear();
  }

  private static key(name: string, dimensions: Readonly<Record<string, string>>): string {
    const dims = Object.keys(dimensions)
      .sort()
      .map((k) => `${k}=${dimensions[k] ?? ''}`)
      .join(',');
    return dims.length === 0 ? name : `${name}|${dims}`;
  }
}

/** Discards every count. */
export const noopMetrics: MetricsSink = { count: () => undefined };
