#!/usr/bin/env node
import process from 'node:process';
import { parseArgs } from 'node:util';
import { VenueClient } from '../client.ts';
import { listen } from './listen.ts';
import { describeError, type Output } from './output.ts';
import { isTrigger, TRIGGERS, trigger } from './trigger.ts';

/** `venue-api-client`, the client package's command line (DECISIONS "Events feed"): `listen` and `trigger`. */

const USAGE = `Usage: venue-api-client <command> [--key KEY] [--url URL]

Commands:
  listen --forward-to URL [--events TYPE,TYPE]
      Follow the events feed from now and POST each event, signed with a secret made for
      this session, to URL. Ctrl-C stops it.
  trigger ${TRIGGERS.join('|')}
      Make that change to a throwaway test customer and print its event's id (test keys only).

The key and the API's address come from VENUE_API_KEY and VENUE_API_URL, or --key and --url.`;

const OPTIONS = {
  key: { type: 'string' },
  url: { type: 'string' },
  'forward-to': { type: 'string' },
  events: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A mistake in how the command was called: its message, then exit 1. */
class UsageError extends Error {}

const out: Output = {
  print: (line) => process.stdout.write(`${line}\n`),
  error: (line) => process.stderr.write(`${line}\n`),
};

function httpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${what} is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${what} must be an http:// or https:// URL: ${value}`);
  }
  return value;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') {
    out.print(USAGE);
    return 0;
  }
  if (command !== 'listen' && command !== 'trigger') {
    throw new UsageError(command ? `Unknown command: ${command}` : 'Name a command: listen or trigger.');
  }
  const apiKey = values.key ?? process.env.VENUE_API_KEY;
  const baseUrl = values.url ?? process.env.VENUE_API_URL;
  if (!apiKey) throw new UsageError('No API key: set VENUE_API_KEY or pass --key.');
  if (!baseUrl) throw new UsageError('No API address: set VENUE_API_URL (e.g. http://127.0.0.1:8080) or pass --url.');
  httpUrl(baseUrl, 'The API address');
  const client = new VenueClient({ apiKey, baseUrl });

  if (command === 'listen') {
    if (rest.length > 0) throw new UsageError(`listen takes no arguments: ${rest.join(' ')}`);
    if (!values['forward-to']) throw new UsageError('listen needs --forward-to URL, where your receiver listens.');
    const forwardTo = httpUrl(values['forward-to'], '--forward-to');
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    try {
      return await listen(client, { forwardTo, events: values.events, signal: stop.signal }, out);
    } finally {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    }
  }

  if (values['forward-to'] !== undefined || values.events !== undefined) {
    throw new UsageError('--forward-to and --events are options of listen, not of trigger.');
  }
  const [type, ...extra] = rest;
  if (!type || !isTrigger(type) || extra.length > 0) {
    throw new UsageError(`trigger takes one event type: ${TRIGGERS.join(', ')}.`);
  }
  // Checked before any request: trigger writes, and live data is not a playground.
  if (!apiKey.startsWith('vw_test_')) {
    const which = apiKey.startsWith('vw_live_') ? 'a live key (vw_live_…)' : 'not a test key';
    throw new UsageError(
      `trigger makes and changes a throwaway customer, so it runs with a test key (vw_test_…) only; this is ${which}.`,
    );
  }
  return trigger(client, type, out, new AbortController().signal);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // parseArgs throws a TypeError whose code names the mistake (ERR_PARSE_ARGS_UNKNOWN_OPTION, …).
    const usage =
      err instanceof UsageError ||
      (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'));
    out.error(`venue-api-client: ${usage ? (err as Error).message : describeError(err)}`);
    if (usage) out.error("Run 'venue-api-client --help' for the commands.");
    process.exitCode = 1;
  },
);
