import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request a receiver got, verified with the `standardwebhooks` package. */
export interface Received {
  path: string;
  id: string;
  headers: IncomingMessage['headers'];
  body: any;
  verified: boolean;
}

/** A local webhook receiver: records every request, answers with what `answer` says. */
export interface Receiver {
  url(path?: string): string;
  port: number;
  received: Received[];
  /** The secret deliveries are verified with (set once the endpoint is made). */
  secret: string;
  answer: (n: number, path: string) => { status: number; headers?: Record<string, string> };
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: (path = '/hook') => `http://127.0.0.1:${receiver.port}${path}`,
    port: 0,
    received: [],
    secret: '',
    answer: () => ({ status: 204 }),
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(receiver.secret).verify(text, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      receiver.received.push({
        path: req.url ?? '',
        id: String(req.headers['webhook-id']),
        headers: req.headers,
        body: JSON.parse(text),
        verified,
      });
      const { status, headers } = receiver.answer(receiver.received.length, req.url ?? '');
      res.writeHead(status, headers);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}
