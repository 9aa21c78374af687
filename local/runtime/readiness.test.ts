import { createServer } from 'node:net';
import { connectionTimeoutMs, createLocalAwsClients } from './clients';
import { StandInsNotReadyError } from './errors';
import { waitForStandIns } from './readiness';
import { startStandIns } from './stand-ins';

/** Two ports that are free now (bound, read, released). */
async function freePorts(): Promise<[number, number]> {
  const one = async () =>
    new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
  return [await one(), await one()];
}

describe('waitForStandIns', () => {
  it('waits for stand-ins that start listening only after it began, instead of failing at once', async () => {
    const [dynamoPort, kinesisPort] = await freePorts();
    const clients = createLocalAwsClients({
      dynamoEndpoint: `http://127.0.0.1:${dynamoPort}`,
      kinesisEndpoint: `http://127.0.0.1:${kinesisPort}`,
    });
    let ready = false;
    const waiting = waitForStandIns(clients, { timeoutMs: 20_000 }).then(() => (ready = true));
    await new Promise((r) => setTimeout(r, 400));
    expect(ready).toBe(false); // nothing listens yet: refused, retried
    const standIns = await startStandIns({ memory: true, dynamoPort, kinesisPort });
    try {
      await waiting;
      expect(ready).toBe(true);
    } finally {
      clients.destroy();
      await standIns.close();
    }
  });

  it('gives up after its bound with an error naming the stand-in and the cause', async () => {
    const [dynamoPort, kinesisPort] = await freePorts();
    const clients = createLocalAwsClients({
      dynamoEndpoint: `http://127.0.0.1:${dynamoPort}`,
      kinesisEndpoint: `http://127.0.0.1:${kinesisPort}`,
    });
    const started = Date.now();
    const err = await waitForStandIns(clients, { timeoutMs: 600 }).catch((e: unknown) => e);
    clients.destroy();
    expect(err).toBeInstanceOf(StandInsNotReadyError);
    expect((err as Error).message).toMatch(/dynalite and kinesalite did not answer within 600 ms/);
    expect((err as Error).cause).toBeDefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('connectionTimeoutMs', () => {
  it.each([
    [undefined, 10_000],
    ['25000', 25_000],
    ['0', 10_000],
    ['-5', 10_000],
    ['soon', 10_000],
    ['1.5', 10_000],
  ])('reads %p as %i ms', (raw, ms) => {
    expect(connectionTimeoutMs(raw)).toBe(ms);
  });
});
