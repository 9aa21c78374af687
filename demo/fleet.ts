/**
 * `npm run demo`: the local stack in memory with mock providers, a fleet of agents — two healthy ones and
 * one runaway per guardrail layer — and a live table of who was stopped by which layer at which call.
 * Then the forecast and the dashboard URL. `runDemo` is the whole demo; demo/run.ts is its CLI.
 *
 * Every agent gets its own organization and API key: a kill flag suspends every key of an organization,
 * so a runaway sharing an organization with a healthy agent would take it down too.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GUARDRAIL_LAYERS, LAYER_IDS } from '../core/guardrails';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../local/stack';
import { flush as flushSdk, shutdown as shutdownSdk } from '../sdk/src';
import { FLEET, type AgentCall, type AgentSpec } from './agents';
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
  /** Time the agents may run before the demo gives up on them. @default 45 s */
  agentsTimeoutMs?: number;
  /** Overrides of the stack's options (memory, free ports and mock providers are always on). */
  stack?: Partial<LocalStackOptions>;
  /** The fleet. @default FLEET */
  agents?: readonly AgentSpec[];
}

/** How an agent ended. */
export interface AgentOutcome {
  readonly name: string;
  readonly path: AgentSpec['path'];
  readonly expectedLayer: AgentSpec['expectedLayer'];
  readonly orgId: string;
  readonly status: 'finished' | 'stopped' | 'failed' | 'timed_out';
  /** Calls made, the blocked one included. */
  readonly calls: number;
  /** Spend of the agent's organization as the server priced it. */
  readonly spendUsd: number;
  /** When stopped: the call that was refused and the layer that refused it. */
  readonly stoppedAtCall?: number;
  readonly stoppedBy?: { layer: number | null; layerName: string; triggerType: string; via: 'proxy' | 'sdk' };
  /** The first guardrail trip recorded for the agent's organization (its message says why). */
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

export interface DemoResult {
  /** Every runaway stopped by its own layer and no healthy agent stopped. */
  readonly ok: boolean;
  readonly agents: readonly AgentOutcome[];
  readonly forecast: { orgId: string; agent: string; horizons: ForecastHorizon[] } | null;
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
  readonly idToken: string;
  status: 'waiting' | 'running' | AgentOutcome['status'];
  calls: number;
  spendUsd: number;
  stoppedAtCall?: number;
  stoppedBy?: AgentOutcome['stoppedBy'];
  trip?: AgentOutcome['trip'];
  error?: string;
}

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

/** The guardrail refusal in an error from either official client, if it is one. */
function refusal(err: unknown): { code: string } | undefined {
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

    // One organization and one key per agent; the dashboard's (seeded) organization hosts one of them.
    const agents: AgentRuntime[] = [];
    for (const spec of fleet) {
      const orgId = spec.dashboardOrg ? stack.orgId : `org_demo_${slug(spec.name)}`;
      const idToken = spec.dashboardOrg ? stack.idToken : await stack.issueIdToken(orgId);
      const created = await call<{ apiKey: string }>('POST', '/v1/keys', { idToken }, { name: spec.name });
      if (spec.dailyCapUsd !== undefined) {
        await call(
          'PUT',
          '/v1/budget',
          { idToken },
          { budget: { dailyLimitUsd: spec.dailyCapUsd, action: 'block' } },
        );
      }
      agents.push({ spec, orgId, apiKey: created.apiKey, idToken, status: 'waiting', calls: 0, spendUsd: 0 });
    }

    // The dashboard's organization gets two weeks of ordinary past traffic from its existing key, so that
    // its forecast projects from days of history rather than from the demo's minute.
    if (agents.some((a) => a.orgId === stack.orgId)) {
      const history = historyEvents(Date.now());
      for (let i = 0; i < history.length; i += 100) {
        await call('POST', '/api/ingest', {}, { apiKey: stack.apiKey, events: history.slice(i, i + 100) });
      }
      await stack.drain();
      print(
        `  ${stack.orgId}: ${history.length} past calls of the last 14 days ingested (history for its forecast)`,
      );
    }

    print();
    print(`Fleet: ${agents.length} agents, each in its own organization with its own API key`);
    print(
      renderTable(
        ['agent', 'path', 'client', 'model', 'expected', 'behaviour'],
        agents.map(({ spec, orgId }) => [
          spec.name + (orgId === stack.orgId ? ' *' : ''),
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
    const deadline = fleetStarted + (options.agentsTimeoutMs ?? 45_000);
    const runawaysDone = () =>
      agents.every(
        (a) => a.spec.expectedLayer === null || (a.status !== 'running' && a.status !== 'waiting'),
      );

    /** Which layer stopped an agent: the proxy's 429 names it; the SDK's block names the flag, read from the API. */
    const stopReason = async (a: AgentRuntime, code: string): Promise<AgentRuntime['stoppedBy']> => {
      let triggerType = code;
      const via = a.spec.path;
      if (code === 'org_suspended') {
        const b = await call<{ flag: { triggerType?: string } | null }>('GET', '/v1/budget', {
          apiKey: a.apiKey,
        });
        triggerType = b.flag?.triggerType ?? 'unknown';
      }
      const { layer, name } = layerOfTrigger(triggerType);
      return { layer, layerName: name, triggerType, via };
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
      for (let n = 1; ; n++) {
        const healthyDone = a.spec.expectedLayer === null && n > (a.spec.minCalls ?? 1) && runawaysDone();
        if (n > a.spec.maxCalls || healthyDone) {
          a.status = a.spec.expectedLayer === null ? 'finished' : 'timed_out';
          break;
        }
        if (n > 1) {
          const pause = a.spec.paceMs(n);
          if (Date.now() + pause >= deadline) {
            a.status = a.spec.expectedLayer === null ? 'finished' : 'timed_out';
            break;
          }
          await sleep(pause);
        }
        a.calls = n;
        try {
          await callFn(n);
        } catch (err) {
          const refused = refusal(err);
          if (refused) {
            a.stoppedAtCall = n;
            try {
              a.stoppedBy = await stopReason(a, refused.code);
            } catch (e) {
              a.stoppedBy = {
                layer: null,
                layerName: 'unknown',
                triggerType: refused.code,
                via: a.spec.path,
              };
              a.error = describeError(e);
            }
            a.status = 'stopped';
            const { state } = stateText(a);
            live.event(`${a.spec.name}: ${state}${a.spec.path === 'sdk' ? ' (blocked by the SDK)' : ''}`);
          } else {
            a.status = 'failed';
            a.error = describeError(err);
            live.event(`${a.spec.name}: FAILED at call ${n}: ${a.error}`);
          }
          break;
        }
      }
      if (a.status === 'finished' || a.status === 'timed_out')
        live.event(`${a.spec.name}: ${stateText(a).state}`);
    };

    live.start();
    await Promise.all(agents.map((a) => runAgent(a)));
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
            trips: Array<{ triggerType: string; message: string; at: string }>;
          }>('GET', '/v1/guardrails/trips?limit=10', { idToken: a.idToken });
          const first = [...trips].sort((x, y) => x.at.localeCompare(y.at))[0];
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
        ? `layer ${by.layer ?? '?'} (${by.layerName}) stopped ${a.spec.name} at call ${a.stoppedAtCall ?? '?'}` +
          (by.via === 'sdk' ? ', blocked by the SDK' : ', refused by the proxy')
        : `${a.spec.name}: ${stateText(a).state}`;
      print(`  ${head}`);
      if (a.trip) print(`      trip: ${a.trip.message}`);
    }
    const sdkRunaway = agents.find((a) => a.spec.path === 'sdk' && a.spec.expectedLayer !== null);
    if (sdkRunaway) {
      print(
        `  (the SDK re-reads its organization's flag at most every 30 s, so ${sdkRunaway.spec.name} runs on ` +
          'after its trip until that read; the proxy checks the flag on every request)',
      );
    }

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
      status: a.status === 'waiting' || a.status === 'running' ? 'timed_out' : a.status,
      calls: a.calls,
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
