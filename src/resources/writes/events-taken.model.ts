import type { Scope } from '../actor.model.ts';
import { CUSTOMER_EVENT_TYPES } from '../webhooks/customer-event.model.ts';
import type { EndpointTaker } from '../webhooks/webhook-endpoint.repo.ts';
import { takesAny } from '../webhooks/webhook.model.ts';

/** Scopes remembered at most; past it the memory starts again (a guess lost costs one write an UPDATE). */
const REMEMBERED = 10_000;

/**
 * Whether a scope's enabled endpoints took customer events at its last write in this process:
 * the write pipeline's guess of whether to make the next write's event before its last
 * statement. Only a guess: nothing is correct or not because of it, only faster.
 */
export class EventsTaken {
  private readonly taken = new Map<string, boolean>();

  likely(scope: Scope): boolean {
    return this.taken.get(key(scope)) === true;
  }

  note(scope: Scope, endpoints: readonly EndpointTaker[]): void {
    const taken = endpoints.some((e) => takesAny(e, CUSTOMER_EVENT_TYPES));
    if (!taken && !this.taken.has(key(scope))) return;
    if (this.taken.size >= REMEMBERED) this.taken.clear();
    this.taken.set(key(scope), taken);
  }
}

const key = (scope: Scope) => `${scope.workspaceId}\n${scope.livemode ? 'live' : 'test'}`;
