import { connect, type Socket } from 'node:net';

/** A raw HTTP/1.1 exchange over a real socket, for what light-my-request cannot send or see. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection. */
  closed: boolean;
}

export function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection or `waitMs` passes. */
export function readUntilClosed(socket: Socket, waitMs: number): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ text, closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
  });
}

export function parseAnswer(text: string, closed: boolean): RawAnswer {
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
  return { status, headers, body: split === -1 ? '' : text.slice(split + 4), closed };
}

/** Sends `text` on a new connection and reads the answer until the server closes or `waitMs` passes. */
export async function exchange(port: number, text: string | Buffer, waitMs = 5_000): Promise<RawAnswer> {
  const socket = await open(port);
  const reading = readUntilClosed(socket, waitMs);
  socket.write(text);
  const { text: answer, closed } = await reading;
  socket.destroy();
  return parseAnswer(answer, closed);
}

/** The answers of a pipelined connection, parsed as they arrive (each with a Content-Length). */
export class AnswerStream {
  readonly answers: RawAnswer[] = [];
  closed = false;
  private chunks: Buffer[] = [];
  private size = 0;
  /** The length of the answer being received, once its head is in. */
  private needed = 0;

  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.size += chunk.length;
      if (this.size >= this.needed) this.parse();
    });
    socket.on('error', () => {});
    socket.on('close', () => (this.closed = true));
  }

  private parse(): void {
    let buffered = Buffer.concat(this.chunks);
    for (;;) {
      const split = buffered.indexOf('\r\n\r\n');
      if (split === -1) break;
      const head = buffered.subarray(0, split).toString('latin1');
      const total = split + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      this.needed = total;
      if (buffered.length < total) break;
      const body = buffered.subarray(split + 4, total).toString('utf8');
      this.answers.push({ ...parseAnswer(`${head}\r\n\r\n`, false), body });
      buffered = buffered.subarray(total);
      this.needed = 0;
    }
    this.chunks = [buffered];
    this.size = buffered.length;
  }
}
