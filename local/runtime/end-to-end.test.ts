/**
 * The wiring shown in docs/local-runtime.md, run for real: stand-ins, clients, provisioning, a
 * gateway route that writes to the stream, a poller that reads it, and the local issuer.
 */
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import type { KinesisStreamEvent } from 'aws-lambda';

import { LOCAL_RESOURCE_NAMES } from '../../lambdas/shared/table-definitions';
import {
  createLocalAwsClients,
  createLocalIssuer,
  provisionLocalResources,
  silentLogger,
  startHttpGateway,
  startKinesisPoller,
  startStandIns,
} from './index';

it('carries a request from the gateway through Kinesis to a consumer', async () => {
  // Prepare
  const received: KinesisStreamEvent[] = [];

  // Act
  const standIns = await startStandIns({ memory: true });
  const clients = createLocalAwsClients(standIns);
  await provisionLocalResources({ dynamo: clients.dynamo, kinesis: clients.kinesis });
  const poller = await startKinesisPoller({
    kinesis: clients.kinesis,
    streamName: LOCAL_RESOURCE_NAMES.eventsStream,
    handler: async (event) => void received.push(event),
    logger: silentLogger,
  });
  const gateway = await startHttpGateway({ logger: silentLogger });
  const issuer = await createLocalIssuer({ memory: true, issuerUrl: `${gateway.url}/local-issuer` });
  gateway.addRawRoute(issuer.jwksRoute());
  gateway.setJwtVerifier(issuer.createVerifier());
  gateway.addRoute({
    method: 'POST',
    path: '/v1/events',
    auth: 'jwt',
    handler: async (event) => {
      const orgId = String(event.requestContext.authorizer.jwt.claims['custom:orgId']);
      await clients.kinesis.send(
        new PutRecordCommand({
          StreamName: LOCAL_RESOURCE_NAMES.eventsStream,
          PartitionKey: orgId,
          Data: Buffer.from(event.body ?? ''),
        }),
      );
      return { statusCode: 202, body: JSON.stringify({ accepted: 1 }) };
    },
  });
  const token = await issuer.issueIdToken({ sub: 'user-1', email: 'dev@example.com', orgId: 'org-1' });
  const response = await fetch(`${gateway.url}/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"tokens":42}',
  });
  await poller.drain();
  await poller.stop();
  await gateway.close();
  clients.destroy();
  await standIns.close();

  // Assess
  expect(response.status).toBe(202);
  const records = received.flatMap((event) => event.Records);
  expect(records).toHaveLength(1);
  expect(records[0]?.kinesis.partitionKey).toBe('org-1');
  expect(Buffer.from(records[0]?.kinesis.data ?? '', 'base64').toString()).toBe('{"tokens":42}');
});
