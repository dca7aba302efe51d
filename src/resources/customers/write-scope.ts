import type { RequestScope } from '../../http/types.ts';
import type { Clock } from '../../lib/time.ts';

/**
 * Who makes a customer write, as every write service sees it: an API key, a staff member
 * (the console) or an operator (the CLI's undo). The API, the CLI, the console and the
 * tests call the same services with one of these (CONVENTIONS 3).
 */
export type Actor =
  | { kind: 'key'; id: string; contactsMasked: boolean }
  | { kind: 'staff'; id: string }
  | { kind: 'operator'; id: string };

export interface WriteScope {
  workspaceId: string;
  /** false: test customers only (SPEC "Conventions": test data). */
  livemode: boolean;
  actor: Actor;
  requestId: string | null;
  clock: Clock;
}

export function keyWriteScope(scope: RequestScope, clock: Clock): WriteScope {
  return {
    workspaceId: scope.workspaceId,
    livemode: scope.livemode,
    actor: { kind: 'key', id: scope.key.id, contactsMasked: scope.key.contactsMasked },
    requestId: scope.requestId,
    clock,
  };
}

/** The key behind a change, recorded on what it creates (DELETE /test-data needs it). */
export function actorKeyId(scope: WriteScope): string | null {
  return scope.actor.kind === 'key' ? scope.actor.id : null;
}

export function masksContacts(scope: WriteScope): boolean {
  return scope.actor.kind === 'key' && scope.actor.contactsMasked;
}
