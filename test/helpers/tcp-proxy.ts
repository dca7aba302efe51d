import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy inside the test, between the app and a server, that can stop forwarding
 * without closing anything: a peer silent on the network (a dead router, a frozen host),
 * which no error and no refused connection reveals.
 */
export class TcpProxy {
  private silent = false;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket; silent: boolean }>();

  private constructor(private readonly server: Server) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server);
    server.on('connection', (client) => proxy.pipe(client, connect(target)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  private pipe(client: Socket, upstream: Socket): void {
    const pair = { client, upstream, silent: this.silent };
    this.pairs.add(pair);
    client.on('data', (chunk) => pair.silent || upstream.write(chunk));
    upstream.on('data', (chunk) => pair.silent || client.write(chunk));
    const close = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  }

  /** From now on no byte passes, either way, on any connection, open or new; none is closed. */
  blackHole(): void {
    this.silent = true;
    for (const pair of this.pairs) pair.silent = true;
  }

  /**
   * New connections are forwarded again. Those held silent stay silent (what was dropped
   * left them out of step): their peers must give up on them.
   */
  restore(): void {
    this.silent = false;
  }

  /** How many connections are open through the proxy now. */
  get open(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
