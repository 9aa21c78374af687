/**
 * `npm run demo`: the local stack in memory with mock providers, a fleet of agents — two healthy ones and
 * one runaway per guardrail layer — and a live table of who was stopped by which layer at which call.
 * Then the forecast and the dashboard URL. `runDemo` is the whole demo; demo/run.ts is its CLI.
 *
 * Kills are scoped (docs/guardrails.md, Kill scopes): a loop (layers 2, 3) is stopped in its session, a
 * burst (layer 4) on its key, so most agents share one organization and two of its keys, and the demo
 * shows each runaway's neighbours working on. The dashboard's organization runs a fleet of concurrent
 * calls against a small daily hard cap, which the relay's admission (docs/admission.md) holds.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GUARDRAIL_LAYERS, LAYER_IDS } from '../core/guardrails';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../local/stack';
import { flush as flushSdk, shutdown as shutdownSdk } from '../sdk/src';
import { FLEET, type AgentCall, type AgentSpec, type CallUsage, type DemoOrg } from './agents';
import { historyEvents } from './history';
import {
  agentTable,
  formatSeconds,
  formatUsd,
  LiveView,
  renderTable,
  type AgentRow,
  type Output,
} from './table';

export { FLEET } from './agents';
export type { AgentSpec } from './agents';

export interface DemoOptions {
  /** Where to write. @default process.stdout */
  out?: Output;
  /** Redraw the table in place (ANSI). @default `out.isTTY` */
  tty?: boolean;
  /** Terminal width for the live table. @default `out.columns` or 120 */
  columns?: number;
  /** Leave the stack running after the demo (it is returned in the result; the caller stops it). */
  keep?: boolean;
  /** Time the phase-2 agents (one runaway per layer) may run before the demo gives up on them. @default 35 s */
  agentsTimeoutMs?: number;
  /** Overrides of the stack's options (memory, free ports and mock providers are always on). */
  stack?: Partial<LocalStackOptions>;
  /** The fleet. @default FLEET */
  agents?: readonly AgentSpec[];
}

/**
 * What stopped an agent: the layer, and what its refusal covered — a session, a key, the organization
 * (a guardrail flag), or `admission` (the relay refused the call's worst case against a hard cap).
 */
export interface StoppedBy {
  readonly layer: number | null;
  readonly layerName: string;
  readonly triggerType: string;
  readonly via: 'proxy' | 'sdk';
  readonly scope: 'session' | 'key' | 'organization' | 'admission' | 'unknown';
}

/** How an agent ended. */
export interface AgentOutcome {
  readonly name: string;
  readonly path: AgentSpec['path'];
  readonly expectedLayer: AgentSpec['expectedLayer'];
  readonly orgId: string;
  /** Name of its API key (agents of one organization may share it) and the session it names. */
  readonly key: string;
  readonly session: string | null;
  /** Calls the provider served (for a concurrent agent, fewer than `calls` minus one). */
  readonly served: number;
  /** A healthy agent: the calls it made after every runaway was done (its neighbours' kills spared it). */
  readonly callsAfterRunaways?: number;
  readonly status: 'finished' | 'stopped' | 'failed' | 'timed_out';
  /** Calls made, the blocked one included. */
  readonly calls: number;
  /** Spend of the agent's organization as the server priced it. */
  readonly spendUsd: number;
  /** When stopped: the call that was refused and the layer that refused it. */
  readonly stoppedAtCall?: number;
  readonly stoppedBy?: StoppedBy;
  /** The first guardrail trip recorded for the agent's own key and session (its message says why). */
  readonly trip?: { layer: number | null; triggerType: string; message: string };
  readonly error?: string;
  /** Whether the agent ended as it should: a runaway stopped by its own layer, a healthy agent finished. */
  readonly asExpected: boolean;
}

export interface ForecastHorizon {
  horizon: string;
  p50Usd: number;
  p95Usd: number;
  p99Usd: number;
  budgets: Array<{ budget: string; capUsd: number; probability: number }>;
}

/**
 * The capped fleet's organization after the fleet: the cap, what the relay settled and still holds
 * (`GET /v1/budget`'s `admission.day`), the ledger's spend, and the served calls' costs computed here
 * from the provider's usage at gpt-4o's list prices (independent of the server's pricing).
 */
export interface AdmissionOutcome {
  readonly agent: string;
  readonly orgId: string;
  readonly concurrency: number;
  readonly served: number;
  readonly refused: number;
  readonly capUsd: number | null;
  readonly settledUsd: number;
  readonly reservedUsd: number;
  readonly outstandingReservations: number;
  /** Spend today in the ledger (the pipeline's pricing). */
  readonly spendTodayUsd: number;
  /** The served calls' costs from their usage: the most expensive one and the sum. */
  readonly maxCallUsd: number;
  readonly servedUsd: number;
  /** max(0, settled − cap): spend past the cap. */
  readonly overshootUsd: number;
  /** cap − settled when refusals came: what the cap had left, too little for one more call. */
  readonly headroomUsd: number;
}

export interface DemoResult {
  /** Every runaway stopped by its own layer and no healthy agent stopped. */
  readonly ok: boolean;
  readonly agents: readonly AgentOutcome[];
  readonly forecast: { orgId: string; agent: string; horizons: ForecastHorizon[] } | null;
  /** The fleet held at its cap (null when the fleet has no concurrent capped agent). */
  readonly admission: AdmissionOutcome | null;
  readonly dashboardUrl: string;
  /** Wall time of the agents' phase. */
  readonly fleetMs: number;
  /** The running stack when `keep` was asked (the caller stops it). */
  readonly stack?: LocalStack;
}

/** Layer number and name of a trigger type (`token_loop_identical` → 2, Dumb Loop Detector). */
export function layerOfTrigger(triggerType: string): { layer: number | null; name: string } {
  for (const id of LAYER_IDS) {
    const layer = GUARDRAIL_LAYERS[id];
    if ((layer.triggerTypes as readonly string[]).includes(triggerType)) {
      return { layer: layer.ordinal, name: layer.name };
    }
  }
  return { layer: null, name: 'unknown trigger' };
}

// ---------------------------------------------------------------------------------------------------

interface AgentRuntime {
  readonly spec: AgentSpec;
  readonly orgId: string;
  readonly apiKey: string;
  /** The key's public id (flags and trips name it). */
  readonly keyId: string;
  readonly idToken: string;
  status: 'waiting' | 'running' | AgentOutcome['status'];
  calls: number;
  served: number;
  refused: number;
  /** Costs of the served calls whose usage the agent reported (gpt-4o list prices). */
  maxCallUsd: number;
  servedUsd: number;
  spendUsd: number;
  /** Healthy agents: calls made when the last runaway was done. */
  callsWhenRunawaysDone?: number;
  stoppedAtCall?: number;
  stoppedBy?: AgentOutcome['stoppedBy'];
  trip?: AgentOutcome['trip'];
  error?: string;
}

/** The capped fleet's bound (it is held within a few seconds). */
const CAPPED_PHASE_MS = 15_000;
/** How long the demo waits for the capped fleet's events to be processed before phase 2. */
const DRAIN_WAIT_MS = 6_000;

/** Events per history ingest request. */
const HISTORY_BATCH = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

function slug(name: string): string {
  return name.replace(/[^a-z0-9]+/gi, '_').toLowerCase();
}

/** Minimal JSON client for the Spendguard API. */
function api(baseUrl: string) {
  return async <T>(
    method: string,
    path: string,
    auth: { idToken?: string; apiKey?: string },
    body?: unknown,
  ): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(auth.idToken ? { authorization: `Bearer ${auth.idToken}` } : {}),
        ...(auth.apiKey ? { 'service-api-key': auth.apiKey } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  };
}

/** The guardrail refusal in an error from any official client, if it is one. */
function refusal(err: unknown): { code: string } | undefined {
  // The AWS SDK (Bedrock): the proxy's refusal is a ServiceQuotaExceededException; the code in a header.
  const aws = err as { name?: unknown; $response?: { headers?: Record<string, string | undefined> } };
  if (aws?.name === 'ServiceQuotaExceededException') {
    const code = aws.$response?.headers?.['x-spendguard-error-code'];
    return typeof code === 'string' ? { code } : undefined;
  }
  const apiError = err instanceof OpenAI.APIError ? err : err instanceof Anthropic.APIError ? err : undefined;
  if (apiError === undefined || apiError.status !== 429) return undefined;
  // OpenAI's client exposes the body's `error` member; Anthropic's the whole body ({ error: { … } }).
  const body = apiError.error as {
    type?: unknown;
    code?: unknown;
    error?: { type?: unknown; code?: unknown };
  };
  const e = body?.type !== undefined ? body : body?.error;
  return e?.type === 'budget_exceeded' && typeof e.code === 'string' ? { code: e.code } : undefined;
}

function describeError(err: unknown): string {
  if (err instanceof OpenAI.APIError || err instanceof Anthropic.APIError) {
    return `HTTP ${String(err.status)}: ${err.message}`.slice(0, 160);
  }
  return err instanceof Error ? err.message : String(err);
}

function stateText(a: AgentRuntime): { state: string; tone: AgentRow['tone'] } {
  switch (a.status) {
    case 'waiting':
      return { state: 'starting', tone: 'running' };
    case 'running':
      return { state: 'running', tone: 'running' };
    case 'finished':
      return { state: 'finished', tone: a.spec.expectedLayer === null ? 'good' : 'bad' };
    case 'stopped': {
      const by = a.stoppedBy;
      const layer = by?.layer === null || by === undefined ? '?' : String(by.layer);
      const ok = a.spec.expectedLayer !== null && by?.layer === a.spec.expectedLayer;
      return {
        state: `STOPPED by layer ${layer} (${by?.triggerType ?? 'unknown'}) at call ${a.stoppedAtCall ?? '?'}`,
        tone: ok ? 'stopped' : 'bad',
      };
    }
    case 'failed':
      return { state: `FAILED: ${a.error ?? 'error'}`, tone: 'bad' };
    case 'timed_out':
      return { state: `not stopped after ${a.calls} calls`, tone: 'bad' };
  }
}

function asExpected(a: AgentRuntime): boolean {
  if (a.spec.expectedLayer === null) return a.status === 'finished';
  return a.status === 'stopped' && a.stoppedBy?.layer === a.spec.expectedLayer;
}

function rowOf(a: AgentRuntime, final: boolean): AgentRow {
  const { state, tone } = stateText(a);
  return {
    name: a.spec.name,
    org: a.spec.org.label,
    path: a.spec.path,
    expected: a.spec.expectedLayer === null ? 'healthy' : `layer ${a.spec.expectedLayer}`,
    calls: a.calls,
    spendUsd: a.spendUsd,
    state,
    tone,
    ...(final ? { verdict: asExpected(a) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------

/**
 * Runs the whole demo and resolves with its outcome; never throws for an agent's misbehaviour (that is
 * an outcome), only when the stack itself cannot start.
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const out: Output = options.out ?? process.stdout;
  const outInfo = out as { isTTY?: boolean; columns?: number };
  const tty = options.tty ?? outInfo.isTTY === true;
  const print = (line = '') => out.write(`${line}\n`);
  const fleet = options.agents ?? FLEET;

  print('Spendguard demo: a fleet of AI agents against the local stack (in memory, mock providers)');
  const bootStarted = Date.now();
  const stack = await startLocalStack({
    ...options.stack,
    memory: true,
    apiPort: options.stack?.apiPort ?? 0,
    proxyPort: options.stack?.proxyPort ?? 0,
    mockProviders: true,
    onStatus: options.stack?.onStatus ?? ((line) => print(`  … ${line}`)),
  });
  let view: LiveView | undefined;
  let stackStopped = false;
  const stopStack = async () => {
    if (stackStopped) return;
    stackStopped = true;
    await stack.stop();
  };

  try {
    print(
      `  stack up in ${formatSeconds(Date.now() - bootStarted)}: API ${stack.apiUrl}, proxy ${stack.proxyUrl}`,
    );
    const call = api(stack.apiUrl);

    // The dashboard's organization gets two weeks of ordinary past traffic from its existing key, so that
    // its forecast projects from days of history rather than from the demo's minute. Before its cap is
    // set: a busy past day above the small cap would otherwise trip layer 1 on history.
    if (fleet.some((spec) => spec.org.dashboard === true)) {
      const history = historyEvents(Date.now());
      // Small batches: on this base a 100-event record fails the pricing consumer's per-event dedupe
      // claims on dynalite and stalls its shard for ~20 s of retries before the dead-letter queue.
      for (let i = 0; i < history.length; i += HISTORY_BATCH) {
        await call(
          'POST',
          '/api/ingest',
          {},
          { apiKey: stack.apiKey, events: history.slice(i, i + HISTORY_BATCH) },
        );
      }
      await stack.drain();
      print(
        `  ${stack.orgId}: ${history.length} past calls of the last 14 days ingested (history for its forecast)`,
      );
    }

    // The organizations (the dashboard's is the seeded one), their settings, and one key per key name.
    const orgs = new Map<DemoOrg, { orgId: string; idToken: string }>();
    const keys = new Map<string, { apiKey: string; keyId: string }>();
    const agents: AgentRuntime[] = [];
    for (const spec of fleet) {
      let org = orgs.get(spec.org);
      if (org === undefined) {
        const orgId = spec.org.dashboard ? stack.orgId : `org_demo_${slug(spec.org.label)}`;
        org = { orgId, idToken: spec.org.dashboard ? stack.idToken : await stack.issueIdToken(orgId) };
        orgs.set(spec.org, org);
        const { dailyCapUsd, policy } = spec.org;
        if (dailyCapUsd !== undefined || policy !== undefined) {
          await call(
            'PUT',
            '/v1/budget',
            { idToken: org.idToken },
            {
              ...(dailyCapUsd !== undefined
                ? { budget: { dailyLimitUsd: dailyCapUsd, action: 'block' } }
                : {}),
              ...(policy !== undefined ? { policy: { layers: policy } } : {}),
            },
          );
        }
      }
      const keyName = `${org.orgId}/${spec.key}`;
      let key = keys.get(keyName);
      if (key === undefined) {
        const created = await call<{ apiKey: string; key: { publicId: string } }>(
          'POST',
          '/v1/keys',
          { idToken: org.idToken },
          { name: spec.key },
        );
        key = { apiKey: created.apiKey, keyId: created.key.publicId };
        keys.set(keyName, key);
      }
      agents.push({
        spec,
        orgId: org.orgId,
        apiKey: key.apiKey,
        keyId: key.keyId,
        idToken: org.idToken,
        status: 'waiting',
        calls: 0,
        served: 0,
        refused: 0,
        maxCallUsd: 0,
        servedUsd: 0,
        spendUsd: 0,
      });
    }

    print();
    print(`Fleet: ${agents.length} agents in ${orgs.size} organizations, on ${keys.size} API keys`);
    print(
      renderTable(
        ['agent', 'org', 'key', 'session', 'path', 'client', 'model', 'expected', 'behaviour'],
        agents.map(({ spec, orgId }) => [
          spec.name + (orgId === stack.orgId ? ' *' : ''),
          spec.org.label,
          spec.key,
          spec.session ?? '-',
          spec.path,
          spec.client,
          spec.models,
          spec.expectedLayer === null ? 'healthy' : `layer ${spec.expectedLayer}`,
          spec.behaviour,
        ]),
      )
        .map((l) => `  ${l}`)
        .join('\n'),
    );
    print(`  * in ${stack.orgId}, the organization the dashboard shows`);
    for (const [org, { orgId }] of orgs) {
      const settings = [
        org.dailyCapUsd !== undefined ? `daily hard cap $${org.dailyCapUsd.toFixed(2)} (block)` : '',
        ...Object.entries(org.policy ?? {}).map(([layer, v]) => `${layer} ${JSON.stringify(v)}`),
      ].filter((x) => x !== '');
      if (settings.length > 0) print(`  ${org.label} (${orgId}): ${settings.join('; ')}`);
    }
    print();

    const live = new LiveView(out, tty, () => agents.map((a) => rowOf(a, false)), {
      columns: options.columns ?? outInfo.columns ?? 120,
    });
    view = live;

    // Spend as the server priced it, per organization (= per agent), refreshed while the fleet runs.
    const refreshSpend = async () => {
      await Promise.all(
        agents.map(async (a) => {
          try {
            const b = await call<{ spend: { todayUsd: number } }>('GET', '/v1/budget', { apiKey: a.apiKey });
            a.spendUsd = b.spend.todayUsd;
          } catch {
            // keep the last value: the table is a view, not the verdict
          }
        }),
      );
    };
    let polling = true;
    const poller = (async () => {
      while (polling) {
        await refreshSpend();
        await sleep(500);
      }
    })();

    const fleetStarted = Date.now();
    let deadline = fleetStarted + CAPPED_PHASE_MS;
    const runawaysDone = () =>
      agents.every(
        (a) => a.spec.expectedLayer === null || (a.status !== 'running' && a.status !== 'waiting'),
      );

    /**
     * Which layer stopped an agent, and what the refusal covers. The proxy's 429 names the trigger (or,
     * from admission, the hard cap); the SDK's names the flag's scope. Either way the flag itself, from
     * `GET /v1/flags`, says its scope and trigger; a `budget_*_hard` refusal with no flag is admission's.
     */
    const stopReason = async (a: AgentRuntime, code: string): Promise<StoppedBy> => {
      const via = a.spec.path;
      const { flags } = await call<{ flags: FlagView[] }>('GET', '/v1/flags', { idToken: a.idToken });
      const applies = (f: FlagView) =>
        f.state === 'SUSPENDED' &&
        (f.scope === 'organization' ||
          (f.scope === 'key' && f.keyId === a.keyId) ||
          (f.scope === 'session' && f.keyId === a.keyId && f.sessionId === (a.spec.session ?? null)));
      const sdkScope = SDK_SCOPE_CODES[code];
      const flag = flags.find(
        (f) => applies(f) && (sdkScope !== undefined ? f.scope === sdkScope : f.triggerType === code),
      );
      if (flag === undefined) {
        const admission = /^budget_(daily|monthly)_(hard|held)$/.test(code);
        const triggerType = code === 'hard_cap' ? 'budget_daily_hard' : code;
        const { layer, name } = layerOfTrigger(triggerType);
        return {
          layer,
          layerName: name,
          triggerType,
          via,
          scope: admission || code === 'hard_cap' ? 'admission' : 'unknown',
        };
      }
      const triggerType = flag.triggerType ?? code;
      const { layer, name } = layerOfTrigger(triggerType);
      return { layer, layerName: name, triggerType, via, scope: flag.scope };
    };

    const runAgent = async (a: AgentRuntime): Promise<void> => {
      let callFn: AgentCall;
      try {
        callFn = a.spec.create({
          apiKey: a.apiKey,
          apiUrl: stack.apiUrl,
          proxyUrl: stack.proxyUrl,
          providerUrls: stack.mockProviderUrls ?? {},
        });
      } catch (err) {
        a.status = 'failed';
        a.error = describeError(err);
        return;
      }
      a.status = 'running';
      // How the agent's workers ended (an object: the workers set it across awaits).
      const end: { kind?: 'bounded' | 'refused' | 'failed' } = {};
      const hasFailed = () => end.kind === 'failed';
      let stopped: Promise<void> | undefined;

      /** One worker: calls until refused, failed, the bound, or (healthy) the runaways are done. */
      const worker = async (): Promise<void> => {
        for (let own = 1; end.kind !== 'failed'; own++) {
          // A healthy agent ends once every runaway is done and it has made a call since: its
          // neighbours' kills did not stop it.
          if (a.spec.expectedLayer === null && a.callsWhenRunawaysDone === undefined && runawaysDone())
            a.callsWhenRunawaysDone = a.calls;
          const healthyDone =
            a.callsWhenRunawaysDone !== undefined &&
            a.calls > a.callsWhenRunawaysDone &&
            a.calls >= (a.spec.minCalls ?? 1);
          if (a.calls >= a.spec.maxCalls || healthyDone) {
            end.kind ??= 'bounded';
            return;
          }
          if (own > 1) {
            const pause = a.spec.paceMs(a.calls + 1);
            if (Date.now() + pause >= deadline) {
              end.kind ??= 'bounded';
              return;
            }
            await sleep(pause);
            if (hasFailed() || a.calls >= a.spec.maxCalls) return;
          }
          const n = ++a.calls;
          try {
            const r = await callFn(n);
            a.served++;
            if (r.usage) {
              const usd = gpt4oListUsd(r.usage);
              a.servedUsd += usd;
              a.maxCallUsd = Math.max(a.maxCallUsd, usd);
            }
          } catch (err) {
            const refused = refusal(err);
            if (refused === undefined) {
              end.kind = 'failed';
              a.error = describeError(err);
              live.event(`${a.spec.name}: FAILED at call ${n}: ${a.error}`);
              return;
            }
            a.refused++;
            if (!hasFailed()) end.kind = 'refused';
            if (a.stoppedAtCall === undefined || n < a.stoppedAtCall) a.stoppedAtCall = n;
            stopped ??= stopReason(a, refused.code).then(
              (by) => {
                a.stoppedBy = by;
              },
              (e: unknown) => {
                a.stoppedBy = {
                  layer: null,
                  layerName: 'unknown',
                  triggerType: refused.code,
                  via: a.spec.path,
                  scope: 'unknown',
                };
                a.error = describeError(e);
              },
            );
            return;
          }
        }
      };
      await Promise.all(Array.from({ length: a.spec.concurrency ?? 1 }, () => worker()));
      await stopped;
      if (end.kind === 'failed') {
        a.status = 'failed';
      } else if (end.kind === 'refused') {
        a.status = 'stopped';
        const { state } = stateText(a);
        const where =
          a.stoppedBy?.scope === 'admission'
            ? ' (admission)'
            : a.spec.path === 'sdk'
              ? ' (blocked by the SDK)'
              : '';
        live.event(`${a.spec.name}: ${state}${where}`);
      } else {
        a.status = a.spec.expectedLayer === null ? 'finished' : 'timed_out';
        live.event(`${a.spec.name}: ${stateText(a).state}`);
      }
    };

    live.start();
    // Two phases. First the capped fleet: the relay's admission holds it without the pipeline, but its
    // ~100 events queue ahead of everyone's in the stream; draining them before the runaways start keeps
    // the guardrails' detection times those of a quiet stream.
    const capped = agents.filter((a) => (a.spec.concurrency ?? 1) > 1);
    if (capped.length > 0) {
      live.event(`phase 1: ${capped.map((a) => a.spec.name).join(', ')} against its hard cap`);
      await Promise.all(capped.map((a) => runAgent(a)));
      await Promise.race([stack.drain(), sleep(DRAIN_WAIT_MS)]);
    }
    const rest = agents.filter((a) => !capped.includes(a));
    live.event(`phase 2: ${rest.length} agents, one runaway per layer, kills scoped to what ran away`);
    deadline = Date.now() + (options.agentsTimeoutMs ?? 35_000);
    await Promise.all(rest.map((a) => runAgent(a)));
    const fleetMs = Date.now() - fleetStarted;
    polling = false;
    await poller;

    // Everything the agents did reaches the ledger: the SDK's buffers, then both consumers.
    await flushSdk({ timeoutMs: 5000 });
    await stack.drain();
    await refreshSpend();
    await Promise.all(
      agents.map(async (a) => {
        try {
          const { trips } = await call<{
            trips: Array<{
              triggerType: string;
              message: string;
              at: string;
              keyId?: string | null;
              sessionId?: string | null;
            }>;
          }>('GET', '/v1/guardrails/trips?limit=200', { idToken: a.idToken });
          // The agent's own trips: sent by its key, from its session or from none.
          const own = trips.filter(
            (t) =>
              t.keyId === a.keyId &&
              (t.sessionId === null || t.sessionId === undefined || t.sessionId === a.spec.session),
          );
          const first = own.sort((x, y) => x.at.localeCompare(y.at))[0];
          if (first)
            a.trip = {
              layer: layerOfTrigger(first.triggerType).layer,
              triggerType: first.triggerType,
              message: first.message,
            };
        } catch {
          // the trips are commentary
        }
      }),
    );
    live.stop();

    if (!tty) print();
    print(`Fleet done in ${formatSeconds(fleetMs)}:`);
    print(
      agentTable(
        agents.map((a) => rowOf(a, true)),
        true,
      )
        .map((l) => `  ${l}`)
        .join('\n'),
    );
    print();
    print('Which layer stopped which agent:');
    for (const a of agents) {
      if (a.spec.expectedLayer === null) {
        print(
          `  ${a.spec.name}: ${a.status === 'finished' ? `not stopped (${a.calls} calls)` : stateText(a).state}`,
        );
        continue;
      }
      const by = a.stoppedBy;
      const head = by
        ? `layer ${by.layer ?? '?'} (${by.layerName}) stopped ${a.spec.name} at call ${a.stoppedAtCall ?? '?'}, ` +
          `${by.via === 'sdk' ? 'blocked by the SDK' : by.scope === 'admission' ? "refused by the proxy's admission" : 'refused by the proxy'}` +
          ` (${scopeText(a, by)})`
        : `${a.spec.name}: ${stateText(a).state}`;
      print(`  ${head}`);
      if (a.trip) print(`      trip: ${a.trip.message}`);
      // A kill narrower than the organization: which of its neighbours kept working to the end.
      if (by && (by.scope === 'session' || by.scope === 'key')) {
        const kept = agents
          .filter((o) => o !== a && o.orgId === a.orgId && o.status === 'finished')
          .map(
            (o) =>
              `${o.spec.name} (${o.keyId === a.keyId ? 'same key' : 'other key'}` +
              `${o.spec.session ? `, session ${o.spec.session}` : ''}, ${o.calls} calls)`,
          );
        if (kept.length > 0) print(`      kept working to the end: ${kept.join('; ')}`);
      }
    }

    const admission = await admissionOutcome(agents, call);
    if (admission) printAdmission(print, admission);

    // The forecast of the dashboard's organization.
    let forecast: DemoResult['forecast'] = null;
    const shown = agents.find((a) => a.orgId === stack.orgId) ?? agents[0];
    if (shown) {
      try {
        // The run is asynchronous (202 + run id): poll it, then read the forecast.
        const started = await call<{ runId: string }>('POST', '/v1/forecast/run', { idToken: shown.idToken });
        for (let i = 0; i < 120; i++) {
          const run = await call<{ status: string }>('GET', `/v1/forecast/runs/${started.runId}`, {
            idToken: shown.idToken,
          });
          if (run.status !== 'running') break;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        const f = await call<{ forecast: { horizons: ForecastHorizon[] } | null }>('GET', '/v1/forecast', {
          idToken: shown.idToken,
        });
        if (f.forecast) {
          forecast = { orgId: shown.orgId, agent: shown.spec.name, horizons: f.forecast.horizons };
          printForecast(print, forecast);
        }
      } catch (err) {
        print(`Forecast unavailable: ${describeError(err)}`);
      }
    }

    const outcomes: AgentOutcome[] = agents.map((a) => ({
      name: a.spec.name,
      path: a.spec.path,
      expectedLayer: a.spec.expectedLayer,
      orgId: a.orgId,
      key: a.spec.key,
      session: a.spec.session ?? null,
      status: a.status === 'waiting' || a.status === 'running' ? 'timed_out' : a.status,
      calls: a.calls,
      served: a.served,
      ...(a.callsWhenRunawaysDone !== undefined
        ? { callsAfterRunaways: a.calls - a.callsWhenRunawaysDone }
        : {}),
      spendUsd: a.spendUsd,
      ...(a.stoppedAtCall !== undefined ? { stoppedAtCall: a.stoppedAtCall } : {}),
      ...(a.stoppedBy ? { stoppedBy: a.stoppedBy } : {}),
      ...(a.trip ? { trip: a.trip } : {}),
      ...(a.error ? { error: a.error } : {}),
      asExpected: asExpected(a),
    }));
    const ok = outcomes.every((o) => o.asExpected);

    print();
    print(
      `Dashboard: ${stack.dashboardUrl}  (organization ${stack.orgId}: ${shown?.spec.name ?? 'the seeded one'})`,
    );
    print(
      options.keep
        ? 'The stack keeps running (--keep): Ctrl-C stops it.'
        : 'The stack stops now that the demo has ended; run `npm run demo -- --keep` to keep it (and the dashboard) running.',
    );
    print();
    print(
      ok
        ? 'RESULT: every runaway was stopped by its own layer; no healthy agent was stopped.'
        : `RESULT: FAILED: ${outcomes
            .filter((o) => !o.asExpected)
            .map((o) => o.name)
            .join(', ')} did not end as expected.`,
    );

    await shutdownSdk({ timeoutMs: 2000 });
    if (!options.keep) await stopStack();
    return {
      ok,
      agents: outcomes,
      forecast,
      admission,
      dashboardUrl: stack.dashboardUrl,
      fleetMs,
      ...(options.keep ? { stack } : {}),
    };
  } catch (err) {
    view?.stop();
    await shutdownSdk({ timeoutMs: 1000 }).catch(() => undefined);
    await stopStack().catch(() => undefined);
    throw err;
  }
}

/** `GET /v1/flags` rows (CONTRACTS.md §1). */
interface FlagView {
  scope: 'organization' | 'key' | 'session';
  keyId: string | null;
  sessionId: string | null;
  state: 'SUSPENDED' | 'THROTTLED';
  triggerType: string | null;
}

/** The SDK's synthetic 429 names the flag's scope, not its trigger (sdk/src/budget.ts). */
const SDK_SCOPE_CODES: Readonly<Record<string, FlagView['scope']>> = {
  org_suspended: 'organization',
  key_suspended: 'key',
  session_suspended: 'session',
};

/** gpt-4o's list prices (OpenAI, per token): $2.50 / M input, $10.00 / M output. */
const GPT4O_INPUT_USD = 2.5e-6;
const GPT4O_OUTPUT_USD = 10e-6;

/** A served call's cost from its usage, at gpt-4o's list prices (the capped fleet's model). */
function gpt4oListUsd(usage: CallUsage): number {
  return usage.promptTokens * GPT4O_INPUT_USD + usage.completionTokens * GPT4O_OUTPUT_USD;
}

function scopeText(a: AgentRuntime, by: StoppedBy): string {
  switch (by.scope) {
    case 'session':
      return `session ${a.spec.session ?? '?'} of key ${a.spec.key}`;
    case 'key':
      return `key ${a.spec.key}`;
    case 'organization':
      return `organization ${a.orgId}`;
    case 'admission':
      return `hard cap of ${a.orgId}`;
    case 'unknown':
      return 'scope unknown';
  }
}

type ApiCall = ReturnType<typeof api>;

/** The capped concurrent agent's organization after the fleet, from `GET /v1/budget` (admission panel). */
async function admissionOutcome(
  agents: readonly AgentRuntime[],
  call: ApiCall,
): Promise<AdmissionOutcome | null> {
  const a = agents.find((x) => (x.spec.concurrency ?? 1) > 1 && x.spec.org.dailyCapUsd !== undefined);
  if (a === undefined) return null;
  const b = await call<{
    spend: { todayUsd: number };
    admission?: {
      day: {
        capUsd: number | null;
        settledUsd: number;
        reservedUsd: number;
        outstandingReservations: number;
      };
    };
  }>('GET', '/v1/budget', { apiKey: a.apiKey });
  const day = b.admission?.day;
  // Without the admission panel (an older server), the ledger's spend stands in for the settled spend.
  const settledUsd = day?.settledUsd ?? b.spend.todayUsd;
  const capUsd = day?.capUsd ?? a.spec.org.dailyCapUsd ?? null;
  return {
    agent: a.spec.name,
    orgId: a.orgId,
    concurrency: a.spec.concurrency ?? 1,
    served: a.served,
    refused: a.refused,
    capUsd,
    settledUsd,
    reservedUsd: day?.reservedUsd ?? 0,
    outstandingReservations: day?.outstandingReservations ?? 0,
    spendTodayUsd: b.spend.todayUsd,
    maxCallUsd: a.maxCallUsd,
    servedUsd: a.servedUsd,
    overshootUsd: capUsd === null ? 0 : Math.max(0, settledUsd - capUsd),
    headroomUsd: capUsd === null ? 0 : capUsd - settledUsd,
  };
}

function printAdmission(print: (line?: string) => void, r: AdmissionOutcome): void {
  print();
  print(
    `Admission: ${r.agent}, ${r.concurrency} concurrent workers in ${r.orgId}, held at its daily hard cap ` +
      '(GET /v1/budget, admission.day)',
  );
  const cap = r.capUsd === null ? 'none' : formatUsd(r.capUsd);
  const rows: [string, string][] = [
    ['daily hard cap', cap],
    ['calls served / refused', `${r.served} / ${r.refused}`],
    ['settled by the relay', formatUsd(r.settledUsd)],
    ['still reserved', `${formatUsd(r.reservedUsd)} (${r.outstandingReservations} calls)`],
    ['ledger spend today', formatUsd(r.spendTodayUsd)],
    ['served calls at list price', `${formatUsd(r.servedUsd)} (one call ≤ ${formatUsd(r.maxCallUsd)})`],
    ['spend past the cap', `${formatUsd(r.overshootUsd)} (bound: one call, ${formatUsd(r.maxCallUsd)})`],
    ['left under the cap', `${formatUsd(r.headroomUsd)} (less than one call's worst case: refused)`],
  ];
  print(
    renderTable(['', ''], rows)
      .slice(2)
      .map((l) => `  ${l}`)
      .join('\n'),
  );
}

const HORIZON_NAMES: Record<string, string> = {
  restOfDay: 'rest of today',
  restOfMonth: 'rest of month',
  next7Days: 'next 7 days',
  next30Days: 'next 30 days',
};

function printForecast(print: (line?: string) => void, f: NonNullable<DemoResult['forecast']>): void {
  print();
  print(
    `Forecast for ${f.orgId} (${f.agent}'s organization), POST /v1/forecast/run: Monte Carlo, 10,000 runs`,
  );
  const rows = f.horizons.map((h) => [
    HORIZON_NAMES[h.horizon] ?? h.horizon,
    formatUsd(h.p50Usd),
    formatUsd(h.p95Usd),
    formatUsd(h.p99Usd),
  ]);
  print(
    renderTable(['horizon', 'P50', 'P95', 'P99'], rows, [1, 2, 3])
      .map((l) => `  ${l}`)
      .join('\n'),
  );
  print('  (spend projected from now to the end of each horizon, from the hourly history: two weeks of');
  print("  ordinary traffic plus today, the runaway's spike included)");
}
