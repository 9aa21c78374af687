/**
 * Issue 15.12, fault injection against kinesalite: the Kinesis client talks to kinesalite through a TCP
 * proxy that can cut every connection (a stream outage as the SDK sees it: connections reset). Events
 * put while it is cut must reach the stream once it is back, 30 s later (virtual time for the spool's
 * retry timers; the network failures are real).
 */
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type KinesisClient,
} from '@aws-sdk/client-kinesis';
import net, { type AddressInfo } from 'node:net';
import type { EventEnvelope } from '../../core/events/telemetry-event';
import {
  createLocalAwsClients,
  createLocalKinesisClient,
  provisionLocalResources,
  startStandIns,
  type StandIns,
} from '../../local/runtime';
import { telemetryEvent } from '../../test/fixtures';
import { KinesisEventSink, SpoolingEventSink } from './event-sink';
import { LOCAL_RESOURCE_NAMES } from './table-definitions';

jest.setTimeout(120_000);

let standIns: StandIns;
let clients: ReturnType<typeof createLocalAwsClients>;
let faultProxy: net.Server;
let viaProxy: KinesisClient;
let down = false;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  standIns = await startStandIns({ memory: true });
  clients = createLocalAwsClients(standIns);
  await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
  const target = new URL(standIns.kinesisEndpoint);
  faultProxy = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => faultProxy.listen(0, '127.0.0.1', r));
  viaProxy = createLocalKinesisClient(`http://127.0.0.1:${(faultProxy.address() as AddressInfo).port}`);
});

afterAll(async () => {
  viaProxy.destroy();
  for (const s of sockets) s.destroy();
  await new Promise((r) => faultProxy.close(r));
  clients.destroy();
  await standIns.close();
});

/** Cuts every connection now and refuses new ones until {@link restore}. */
function cut(): void {
  down = true;
  for (const s of sockets) s.destroy();
}
function restore(): void {
  down = false;
}

/** A virtual clock for the spool's retry timers: tasks run, in order, only when time is advanced. */
class VirtualTimers {
  now = 0;
  private tasks: Array<{ at: number; fn: () => Promise<void> }> = [];
  schedule = (fn: () => Promise<void>, ms: number): void => {
    this.tasks.push({ at: this.now + ms, fn });
  };
  /** Advances to `until`, running (and awaiting) every task that falls due on the way. */
  async advanceTo(until: number): Promise<void> {
    for (;;) {
      this.tasks.sort((a, b) => a.at - b.at);
      const next = this.tasks[0];
      if (next === undefined || next.at > until) break;
      this.tasks.shift();
      this.now = next.at;
      await next.fn();
    }
    this.now = until;
  }
  get pending(): number {
    return this.tasks.length;
  }
}

let counter = 0;
function envelope(orgId: string): EventEnvelope {
  return {
    v: 1,
    orgId,
    keyId: 'k1',
    receivedAt: 0,
    events: [telemetryEvent({ eventId: `evt_spool_${++counter}` })],
  };
}

/** Every event id on the stream, from the start of every shard. */
async function eventIdsOnStream(): Promise<string[]> {
  const k = clients.kinesis;
  const stream = await k.send(new DescribeStreamCommand({ StreamName: LOCAL_RESOURCE_NAMES.eventsStream }));
  const ids: string[] = [];
  for (const shard of stream.StreamDescription?.Shards ?? []) {
    const it = await k.send(
      new GetShardIteratorCommand({
        StreamName: LOCAL_RESOURCE_NAMES.eventsStream,
        ShardId: shard.ShardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    let iterator = it.ShardIterator;
    for (let i = 0; i < 20 && iterator; i++) {
      const out = await k.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      for (const r of out.Records ?? []) {
        const env = JSON.parse(Buffer.from(r.Data!).toString('utf8')) as EventEnvelope;
        ids.push(...env.events.map((e) => e.eventId));
      }
      if ((out.Records ?? []).length === 0) break;
      iterator = out.NextShardIterator;
    }
  }
  return ids;
}

function spoolOver(timers: VirtualTimers, maxEnvelopes?: number) {
  const dropped: number[] = [];
  const sink = new SpoolingEventSink({
    inner: new KinesisEventSink({ client: viaProxy, streamName: LOCAL_RESOURCE_NAMES.eventsStream }),
    schedule: timers.schedule,
    ...(maxEnvelopes !== undefined ? { maxEnvelopes } : {}),
    metrics: { count: (_name, _dims, value = 1) => void dropped.push(value) },
  });
  return { sink, dropped: () => dropped.reduce((a, b) => a + b, 0) };
}

describe('SpoolingEventSink against kinesalite (issue 15.12)', () => {
  it('keeps every event through a 30 s stream outage and delivers it once the stream is back', async () => {
    const timers = new VirtualTimers();
    const { sink, dropped } = spoolOver(timers);
    const before = new Set(await eventIdsOnStream());

    cut();
    const envelopes = Array.from({ length: 40 }, (_, i) => envelope(`org_spool_${i % 4}`));
    const t0 = performance.now();
    await Promise.all(envelopes.map((e) => sink.put([e]))); // never rejects
    const putMs = performance.now() - t0;
    expect(sink.spooled).toBe(40);

    // 30 s of outage: every retry the spool makes meets a reset connection.
    for (let t = 1000; t <= 30_000; t += 1000) await timers.advanceTo(t);
    expect(sink.spooled).toBe(40);
    expect(timers.pending).toBe(1); // still retrying

    restore();
    await timers.advanceTo(35_000);
    expect(sink.spooled).toBe(0);
    await sink.drained();

    const delivered = (await eventIdsOnStream()).filter((id) => !before.has(id));
    expect(delivered.sort()).toEqual(envelopes.map((e) => e.events[0]!.eventId).sort());
    expect(dropped()).toBe(0);
    // The puts themselves returned after the inner sink's short retries, not after the outage.
    expect(putMs).toBeLessThan(10_000);
  });

  it('drops beyond its bound, counts the drops, and delivers what it kept in order', async () => {
    const timers = new VirtualTimers();
    const { sink, dropped } = spoolOver(timers, 10);
    const before = new Set(await eventIdsOnStream());
    cut();
    const envelopes = Array.from({ length: 15 }, () => envelope('org_spool_order'));
    for (const e of envelopes) await sink.put([e]);
    expect(sink.spooled).toBe(10);
    expect(dropped()).toBe(5);
    // While the spool holds envelopes, new ones queue behind them even if the stream is back.
    restore();
    const late = envelope('org_spool_order');
    await sink.put([late]);
    expect(sink.spooled).toBe(10); // the bound still holds: the late one is the 11th
    expect(dropped()).toBe(6);
    await timers.advanceTo(10_000);
    await sink.drained();
    const delivered = (await eventIdsOnStream()).filter((id) => !before.has(id));
    expect(delivered).toEqual(envelopes.slice(0, 10).map((e) => e.events[0]!.eventId));
  });

  it('puts straight through while the stream works (no spooling, no timers)', async () => {
    const timers = new VirtualTimers();
    const { sink } = spoolOver(timers);
    const e = envelope('org_spool_ok');
    await sink.put([e]);
    expect(sink.spooled).toBe(0);
    expect(timers.pending).toBe(0);
    expect(await eventIdsOnStream()).toContain(e.events[0]!.eventId);
  });
});
