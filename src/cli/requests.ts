import { Command, InvalidArgumentError } from 'commander';
import { getRequest, listKeyRequests, MAX_REQUESTS_LISTED } from '../resources/request-log/request-log.service.ts';
import { printResult, withStorage } from './run.ts';

type RequestObject = Awaited<ReturnType<typeof getRequest>>;

function oneLine(r: Omit<RequestObject, 'request_body' | 'response_body' | 'truncated'>): string {
  return `${r.created_at}  ${r.id}  ${r.method} ${r.path}  ${r.status}${r.code ? ` ${r.code}` : ''}  ${r.duration_ms} ms  ${r.ip}`;
}

function limitOf(raw: string): number {
  const n = /^\d{1,5}$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_REQUESTS_LISTED))
    throw new InvalidArgumentError(`a whole number from 1 to ${MAX_REQUESTS_LISTED}.`);
  return n;
}

/** `requests KEY_ID` and `requests show REQ_ID` (DECISIONS "Request log, key rolling, allowed addresses"). */
export function requestsCommand(): Command {
  const cmd = new Command('requests')
    .description("A key's request log, newest first (bodies with `requests show`).")
    // `requests show REQ --json`: the option is the subcommand's, not this command's.
    .enablePositionalOptions()
    .argument('<key>', 'the key_ id')
    .option('--status <class>', '2xx, 3xx, 4xx or 5xx')
    .option('--limit <n>', `how many (at most ${MAX_REQUESTS_LISTED})`, limitOf, 50)
    .option('--json', 'print one JSON document')
    .action(async (keyId: string, opts: { status?: string; limit: number; json?: boolean }) => {
      const rows = await withStorage(({ storage }) =>
        listKeyRequests(storage.db, keyId, {
          limit: opts.limit,
          ...(opts.status !== undefined ? { status: opts.status } : {}),
        }),
      );
      printResult(opts.json, rows, () =>
        rows.length === 0 ? `No requests of ${keyId}.` : rows.map(oneLine).join('\n'),
      );
    });

  cmd
    .command('show')
    .description('One request with its bodies.')
    .argument('<request>', 'the req_ id (the Request-Id header of its answer)')
    .option('--json', 'print one JSON document')
    .action(async (requestId: string, opts: { json?: boolean }) => {
      const row = await withStorage(({ storage }) => getRequest(storage.db, requestId));
      printResult(opts.json, row, () =>
        [
          oneLine(row),
          `key ${row.key}  version ${row.version ?? '-'}  user agent ${row.user_agent ?? '-'}`,
          `request body${row.truncated ? ' (bodies cut at 16 KiB)' : ''}:`,
          row.request_body ?? '(none kept)',
          'response body:',
          row.response_body ?? '(none kept)',
        ].join('\n'),
      );
    });
  return cmd;
}
