import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { VenueApiError } from 'venue-api-client';
import type { ApiResult } from './calls.ts';

/**
 * What a tool hands back to the model. Records as compact JSON text, exactly as the API
 * answered them (a masked key's contacts stay masked); an API error as a tool error that
 * names the problem's `code` and `detail` and says what to do next, following the client
 * guidance of SPEC "Errors" (on 429 wait, on any 403 stop and tell a person, on 412 re-read).
 */

const STOP = 'Stop: do not retry this or any other tool, and do not look for another way round.';

/** The next step for each code, in words a model follows. */
function nextStep(problem: VenueApiError): string {
  const { retryAfter } = problem;
  switch (problem.code) {
    case 'key_paused':
      return `${STOP} The API key was paused for unusual activity and every call fails until a person who manages this workspace's API keys resumes it in the developer settings. Ask a person to check and resume the key, and tell them what you were doing.`;
    case 'unauthorized':
      return `${STOP} The API key is missing, mistyped, expired or revoked, so no tool can work. Ask a person to give this MCP server a valid key (VENUE_API_KEY); keys are made and managed in the workspace's developer settings.`;
    case 'forbidden':
      return 'This key is not allowed to do this. Do not look for another way round it: tell a person what you were trying to do, so they can decide.';
    case 'rate_limited': {
      const wait = retryAfter ?? 60;
      return `A limit was reached${problem.limit ? ` (${problem.limit})` : ''}. Wait ${wait} second${wait === 1 ? '' : 's'} before calling again; calling sooner is refused and does not help.`;
    }
    case 'not_found':
      return 'No such record for this key. Check the id (its prefix must match the collection, e.g. cus_ for customers) or find the record with list_records. A deleted customer is not found.';
    case 'precondition_failed':
      return 'The customer changed since you read it. Read it again with get_record, check that your change still makes sense, then retry with its new version as if_match.';
    case 'conflict':
      return 'The write conflicts with the data as it is now (for example another customer has this email, or an email or phone that is already set cannot be changed). Do not repeat the same call; look the customer up (list_records with the email filter) and decide again. If the detail says the same request is still running, wait a few seconds and retry.';
    case 'invalid_request':
      return 'Fix the arguments the detail names and call again.';
    case 'payload_too_large':
      return 'Send shorter values and call again.';
    case 'service_unavailable':
      return `The API is briefly unavailable. Wait ${retryAfter ?? 5} seconds and retry.`;
    case 'internal_error':
      return 'The API failed unexpectedly. Retry once a little later; if it fails again, tell a person and quote the request_id.';
    // The client's code for an error answer that is not a problem document: not the API's.
    case 'unknown_error':
      return 'This answer did not come from the Venue API. Tell a person that this MCP server cannot use it (is VENUE_API_URL right?).';
    default:
      return 'This is unexpected for this tool. Tell a person and quote the request_id.';
  }
}

export function problemText(problem: VenueApiError): string {
  const lines = [`API error ${problem.code} (HTTP ${problem.status}): ${problem.detail}`];
  for (const e of problem.errors) {
    const line = `${e.field}: ${e.message}`;
    if (!problem.detail.includes(line)) lines.push(`- ${line}`);
  }
  lines.push(`What to do: ${nextStep(problem)}`);
  if (problem.requestId) lines.push(`request_id: ${problem.requestId}`);
  return lines.join('\n');
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** One API answer as a tool result. */
export function toolResult(result: ApiResult): CallToolResult {
  if (result.kind === 'failed') {
    return errorResult(
      `${result.message}\nWhat to do: retry once in a minute; if it still fails, tell a person that this MCP server cannot use the Venue API (is VENUE_API_URL right?).`,
    );
  }
  if (result.kind === 'problem') return errorResult(problemText(result.error));
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(result.body) }];
  if (result.replayed) {
    content.push({
      type: 'text',
      text: 'This identical call was already made within the last 24 hours: the API returned the stored answer and wrote nothing new. If the record changed since (for example it was deleted), read it again with get_record.',
    });
  }
  return { content };
}
