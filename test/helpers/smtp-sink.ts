import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** The Subject header and the body, decoded from MIME encoded-words and quoted-printable. */
  subject: string;
  text: string;
}

const hex = (s: string) => s.replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

function decode(raw: string): { subject: string; text: string } {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const subjectLine = /^Subject: (.*)$/im.exec(unfolded)?.[1] ?? '';
  const subject = subjectLine
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_, q: string) => hex(q.replace(/_/g, ' ')));
  const body = rest.join('\n\n');
  const text = /quoted-printable/i.test(head) ? hex(body.replace(/=\r?\n/g, '')) : body;
  return { subject, text: text.replace(/\r\n/g, '\n') };
}

/** A real SMTP server on a free local port that keeps what it receives (no TLS, no auth). */
export interface SmtpSink {
  url: string;
  received: ReceivedMail[];
  /** Resolves once `count` messages have arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          ...decode(Buffer.concat(chunks).toString('utf8')),
        });
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    waitFor: (count, timeoutMs = 5_000) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`${received.length} of ${count} emails arrived`)),
          timeoutMs,
        );
        const check = () => {
          if (received.length >= count) {
            clearTimeout(deadline);
            resolve(received);
          } else waiters.push(check);
        };
        check();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
