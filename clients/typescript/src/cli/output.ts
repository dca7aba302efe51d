import { VenueApiError, VenueConnectionError } from '../errors.ts';

/** What the commands print: lines for the user on stdout, problems on stderr. */
export interface Output {
  print(line: string): void;
  error(line: string): void;
}

/** An error as one line a person can act on: the API's code and detail with its request id, or what failed on the way. */
export function describeError(err: unknown): string {
  if (err instanceof VenueApiError) {
    const id = err.requestId ? ` (request ${err.requestId})` : '';
    return `${err.status} ${err.code}: ${err.detail}${id}`;
  }
  if (err instanceof VenueConnectionError) return `no answer from the API: ${rootCause(err)}`;
  return err instanceof Error ? rootCause(err) : String(err);
}

/** fetch says only "fetch failed"; its innermost cause says what happened (`connect ECONNREFUSED 127.0.0.1:3000`). */
export function rootCause(err: Error): string {
  let inner = err;
  while (inner.cause instanceof Error) inner = inner.cause;
  return inner.message;
}

/** Waits `ms`, or less when `signal` aborts; never throws. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
