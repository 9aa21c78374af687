import http from 'node:http';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import { dualProtocolServer, type DualServer } from './h2c';

let dual: DualServer;
let port: number;

beforeAll(async () => {
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${req.httpVersion} ${req.method} ${Buffer.concat(chunks).toString()}`);
    });
  };
  dual = dualProtocolServer(http.createServer(handler), handler);
  await new Promise<void>((r) => dual.front.listen(0, '127.0.0.1', r));
  port = (dual.front.address() as AddressInfo).port;
});
afterAll(async () => {
  dual.http2.close();
  await new Promise((r) => dual.front.close(r));
});

it('serves HTTP/1.1 (a POST starts with the preface letter P) and h2c prior knowledge on one port', async () => {
  const one = await fetch(`http://127.0.0.1:${port}/x`, { method: 'POST', body: 'hello' });
  expect(await one.text()).toBe('1.1 POST hello');

  const session = http2.connect(`http://127.0.0.1:${port}`);
  const text = await new Promise<string>((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': '/y' });
    let out = '';
    req.on('data', (c: Buffer) => (out += c.toString()));
    req.on('end', () => resolve(out));
    req.on('error', reject);
    req.end('world');
  });
  session.close();
  expect(text).toBe('2.0 POST world');
});

it('recognises a preface split over several packets', async () => {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const reply = new Promise<Buffer>((resolve) => socket.once('data', resolve));
  const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  socket.setNoDelay(true);
  for (const part of [preface.subarray(0, 1), preface.subarray(1, 9), preface.subarray(9)]) {
    socket.write(part);
    await new Promise((r) => setTimeout(r, 10));
  }
  socket.write(Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])); // an empty SETTINGS frame
  const first = await reply;
  socket.destroy();
  expect(first[3]).toBe(4); // the server's first frame: SETTINGS (type 4)
});
