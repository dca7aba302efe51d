import type { Clock } from '../lib/time.ts';
import { DEFAULT_KEY_LIMITS, type ApiKey } from './keys/key.model.ts';

/**
 * Who acts, in which workspace and mode, and what they may see: what every service takes
 * (CONVENTIONS 3), so the API, the CLI, the console and the tests call the same code.
 * An API key acts through the HTTP API, a staff member through the console, an operator
 * through the CLI (an undo, an import).
 */
export type ActorKind = 'key' | 'staff' | 'operator';

export interface Actor {
  readonly kind: ActorKind;
  /** The key's `key_` id, the staff member's `stf_` id, or the operator's name. */
  readonly id: string;
  readonly workspaceId: string;
  /** false: the test rows of the test-aware collections only (SPEC "Conventions": test data). */
  readonly livemode: boolean;
  /** DECISIONS "Keys": a contacts-masked key never sees an email or phone in full. */
  readonly contactsMasked: boolean;
  /** Page sizes: the key's own limits; the defaults for people. */
  readonly pageSize: { readonly default: number; readonly max: number };
  /** The request this act belongs to, as the change log records it; null outside the API. */
  readonly requestId: string | null;
  /** Stamps what the actor reads and writes ("today" for `adult`, `updated_at`); tests inject one. */
  readonly clock: Clock;
}

/**
 * What scopes every query (CONVENTIONS 4): the repositories take this part of the actor,
 * so no query of workspace data is written without its workspace and mode.
 */
export type Scope = Pick<Actor, 'workspaceId' | 'livemode'>;

export function keyActor(key: ApiKey, requestId: string, clock: Clock): Actor {
  return {
    kind: 'key',
    id: key.id,
    workspaceId: key.workspaceId,
    livemode: key.mode === 'live',
    contactsMasked: key.contactsMasked,
    pageSize: { default: key.limits.page_size_default, max: key.limits.page_size_max },
    requestId,
    clock,
  };
}

/** A person acting in a workspace's mode: staff in the console, an operator at the CLI. */
export function personActor(
  kind: Exclude<ActorKind, 'key'>,
  id: string,
  scope: { workspaceId: string; livemode: boolean },
  clock: Clock,
): Actor {
  return {
    kind,
    id,
    workspaceId: scope.workspaceId,
    livemode: scope.livemode,
    contactsMasked: false,
    pageSize: { default: DEFAULT_KEY_LIMITS.page_size_default, max: DEFAULT_KEY_LIMITS.page_size_max },
    requestId: null,
    clock,
  };
}

/** The key behind an act, recorded on what it adds (DELETE /test-data needs it); null for people. */
export const actorKeyId = (actor: Actor): string | null => (actor.kind === 'key' ? actor.id : null);
