import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Answers a connection may have begun and not yet handed to the operating system. A client
 * that reads none of its answers holds at most this many in memory, however deep it
 * pipelines; a pipelining client that reads keeps this many of its requests overlapping
 * (their answers go out in order anyway).
 */
export const MAX_UNSENT_ANSWERS = 8;

interface Connection {
  socket: Socket;
  /** Answers begun and not yet handed to the operating system (their 'close' has not fired). */
  unsent: number;
  /** Requests parsed and waiting for an earlier answer to go out; each resumes its hooks. */
  waiting: Array<() => void>;
  /** Whether this plugin stopped reading the socket, and so must start it again. */
  holding: boolean;
  /** Whether a waiting request is due to start on the next turn of the event loop. */
  admitting: boolean;
  /** Whether the next 'resume' event is heldAgain's own. */
  resuming: boolean;
  /** The one listener, per connection, that every answer's 'close' calls. */
  sent: () => void;
}

const connections = new WeakMap<Socket, Connection>();

function connectionOf(socket: Socket): Connection {
  const known = connections.get(socket);
  if (known) return known;
  const conn: Connection = {
    socket,
    unsent: 0,
    waiting: [],
    holding: false,
    admitting: false,
    resuming: false,
    sent: () => {},
  };
  conn.sent = () => answerSent(conn);
  connections.set(socket, conn);
  socket.on('resume', () => conn.holding && heldAgain(conn));
  // A closed connection's waiting requests are dropped: nobody is left to answer.
  socket.once('close', () => (conn.waiting.length = 0));
  return conn;
}

function hold(conn: Connection): void {
  conn.holding = true;
  conn.socket.pause();
}

/**
 * Node resumes the socket of its own accord, as each request is parsed whole and as its own
 * output drains; the 'resume' event comes a tick later, and Node starts reading with it.
 * Paused again here, reading stops again. A pause() in the tick between leaves the stream
 * marked paused though it reads, which another pause() would not change: resumed once more,
 * its own 'resume' pauses it for good, unless Node, holding it itself, paused it first.
 */
function heldAgain(conn: Connection): void {
  const ours = conn.resuming;
  conn.resuming = false;
  if (conn.socket.destroyed) return;
  if (conn.socket.readableFlowing !== false) {
    conn.socket.pause();
  } else if (!ours) {
    conn.resuming = true;
    conn.socket.resume();
  }
}

function release(conn: Connection): void {
  if (!conn.holding || conn.socket.destroyed) return;
  conn.holding = false;
  conn.resuming = false;
  conn.socket.resume();
}

function begin(conn: Connection, res: ServerResponse): void {
  conn.unsent++;
  res.once('close', conn.sent);
}

function answerSent(conn: Connection): void {
  conn.unsent--;
  if (conn.waiting.length > 0) admitNextTurn(conn);
}

/**
 * A waiting request starts on a later turn of the event loop, one per connection per turn:
 * an answer the kernel takes at once finishes within the turn that started it, so starting
 * the next one there would run a connection's whole pipeline before any other client is read.
 */
function admitNextTurn(conn: Connection): void {
  if (conn.admitting) return;
  conn.admitting = true;
  setImmediate(admit, conn);
}

function admit(conn: Connection): void {
  conn.admitting = false;
  if (conn.unsent < MAX_UNSENT_ANSWERS) conn.waiting.shift()?.();
  if (conn.waiting.length === 0) release(conn);
  else if (conn.unsent < MAX_UNSENT_ANSWERS) admitNextTurn(conn);
}

/**
 * Node decides to stop reading a connection as each request is parsed, by what it has queued
 * to send; but the requests of one chunk are all parsed, and all started, before any has
 * answered, and each answer then waits in memory behind one the client is not reading. This
 * hook, before any other, starts a request at once while its connection has fewer than
 * MAX_UNSENT_ANSWERS unsent answers and nothing waiting; otherwise the request waits, and
 * once as many wait the connection is no longer read. Waiting requests start one per turn.
 */
export const backpressure = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, reply, done) => {
    const conn = connectionOf(request.raw.socket);
    if (conn.unsent < MAX_UNSENT_ANSWERS && conn.waiting.length === 0) {
      begin(conn, reply.raw);
      return done();
    }
    conn.waiting.push(() => {
      begin(conn, reply.raw);
      done();
    });
    if (conn.waiting.length >= MAX_UNSENT_ANSWERS) hold(conn);
    if (conn.unsent < MAX_UNSENT_ANSWERS) admitNextTurn(conn);
  });
});
