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

export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

/** A local webhook receiver: records every request, answers with what `answer` says. */
export interface Receiver {
  url(path?: string): string;
  port: number;
  received: Received[];
  /** The secret deliveries are verified with (set once the endpoint is made). */
  secret: string;
  /** What to answer the n-th request; a promise holds the answer back (a hanging receiver). */
  answer: (n: number, path: string) => Answer | Promise<Answer>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: (path = '/hook') => `http://127.0.0.1:${receiver.port}${path}`,
    port: 0,
    received: [],
    secret: '',
    answer: () => ({ status: 204 }),
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
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
      void Promise.resolve(receiver.answer(receiver.received.length, req.url ?? '')).then(({ status, headers }) => {
        // A held answer may find its sender gone (timed out, or killed).
        if (res.destroyed) return;
        res.writeHead(status, headers);
        res.end();
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}
