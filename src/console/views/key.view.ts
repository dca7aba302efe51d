import type { Change, FieldMap } from '../../resources/changes/change.model.ts';
import type { KeyHistoryPage } from '../../resources/changes/key-history.service.ts';
import { KEY_LOG_COUNTED } from '../../resources/changes/key-log.repo.ts';
import type { UndoJobView } from '../../resources/changes/undo-job.service.ts';
import type { KeyUsage } from '../../resources/keys/key-usage.service.ts';
import type { KeyRecord } from '../../resources/keys/key.repo.ts';
import { keyState } from '../../resources/keys/key.service.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, describedBy, fieldError, notice, page, when, type PageContext } from './layout.ts';
import { ACCESS_LABEL, MODE_LABEL, statusText } from './keys.view.ts';
import { keyTabs } from './key-tabs.view.ts';
import { undoJobSection } from './undo-job.view.ts';
import { usageSection } from './usage.view.ts';

export interface UsageRow {
  name: string;
  limit: number;
  usedToday: number | null;
}

function fields(map: FieldMap | null): SafeHtml {
  if (!map || Object.keys(map).length === 0) return html`—`;
  return html`<pre class="fields">${Object.entries(map)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join('\n')}</pre>`;
}

function who(c: Change): string {
  return c.actor_kind === 'key' ? 'this key' : `${c.actor_kind} ${c.actor_id}`;
}

function logTable(keyId: string, history: KeyHistoryPage) {
  if (history.total === 0) return html`<p>This key has changed nothing.</p>`;
  const pager = html`<nav class="pager" aria-label="Change log pages">
      ${history.page > 1 && html`<a href="/console/keys/${keyId}?page=${history.page - 1}#log">Newer changes</a>`}
      <span>Page ${history.page}${history.pages !== null && ` of ${history.pages}`}</span>
      ${history.older && html`<a href="/console/keys/${keyId}?page=${history.page + 1}#log">Older changes</a>`}
    </nav>`;
  return html`<table>
      <caption class="hint">${history.total ?? `More than ${KEY_LOG_COUNTED.toLocaleString('en')}`} change(s), newest first</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Customer</th>
        <th scope="col">Before</th><th scope="col">After</th><th scope="col">By</th></tr></thead>
      <tbody>${history.changes.map(
        (c) => html`<tr>
          <td>${when(c.at)}</td>
          <td>${c.action}${c.reverts && html` (undo)`}${c.undo_outcome && html` <span class="hint">undo: ${c.undo_outcome}</span>`}</td>
          <td><a href="/console/keys/${keyId}/customers/${c.object_id}"><code>${c.object_id}</code></a></td>
          <td>${fields(c.before)}</td>
          <td>${fields(c.after)}</td>
          <td>${who(c)}</td>
        </tr>`,
      )}</tbody>
    </table>${pager}`;
}

const ACTION_DONE = {
  pause: 'paused',
  resume: 'resumed',
  revoke: 'revoked',
  addresses: 'given its allowed addresses',
} as const;

export function keyPage(
  ctx: PageContext,
  view: {
    key: KeyRecord;
    usage: UsageRow[];
    activity: KeyUsage;
    history: KeyHistoryPage;
    undo: UndoJobView | null;
    now: number;
    done?: string;
  },
) {
  const { key, now } = view;
  const state = keyState(key, now);
  const action = (move: 'pause' | 'resume' | 'revoke' | 'roll' | 'addresses', label: string, danger = false) =>
    html`<form method="get" action="/console/keys/${key.id}/${move}"><button type="submit"${
      danger ? html` class="danger"` : null
    }>${label}</button></form>`;
  const done = view.done && (ACTION_DONE as Record<string, string>)[view.done];
  return page(
    ctx,
    key.name,
    html`${keyTabs(key.id, 'overview')}
    ${done && notice('ok', `The key was ${done}. The API sees it within seconds.`)}
    <dl class="facts">
      <dt>Status</dt><dd>${statusText(key, now)}</dd>
      ${key.status === 'paused' && html`<dt>Paused at</dt><dd>${when(key.pausedAt)}</dd><dt>Pause reason</dt><dd>${key.pauseReason ?? '—'}</dd>`}
      ${key.status === 'revoked' && html`<dt>Revoked at</dt><dd>${when(key.revokedAt)}</dd>`}
      <dt>Key id</dt><dd><code>${key.id}</code></dd>
      <dt>Mode</dt><dd>${MODE_LABEL[key.mode]}</dd>
      <dt>Access</dt><dd>${ACCESS_LABEL[key.access]}</dd>
      <dt>Kind</dt><dd>${key.kind === 'restricted' ? 'Restricted' : 'Standard'}</dd>
      <dt>Can read</dt><dd>${key.canRead.join(', ') || 'nothing'}</dd>
      <dt>Can write</dt><dd>${key.canWrite.join(', ') || 'nothing'}</dd>
      <dt>Contacts masked</dt><dd>${key.contactsMasked ? 'Yes' : 'No'}</dd>
      <dt>Expires</dt><dd>${key.expiresAt === null ? 'Never' : when(key.expiresAt)}</dd>
      <dt>Allowed addresses</dt><dd>${key.allowedIps.length ? key.allowedIps.join(', ') : 'Anywhere'}</dd>
      ${
        key.previousSecretExpiresAt !== null &&
        key.previousSecretExpiresAt > now &&
        html`<dt>Previous secret</dt><dd>works until ${when(key.previousSecretExpiresAt)}</dd>`
      }
      <dt>Created</dt><dd>${when(key.createdAt)} by ${key.createdBy ?? 'unknown'}</dd>
      <dt>Terms agreed</dt><dd>${key.agreedBy ? html`${key.agreedBy}, ${when(key.agreedAt)}` : 'not recorded'}</dd>
      <dt>Last used</dt><dd>${key.lastUsedAt === null ? 'Never' : when(key.lastUsedAt)}</dd>
    </dl>
    <div class="actions">
      ${state === 'active' && action('pause', 'Pause')}
      ${key.status === 'paused' && action('resume', 'Resume')}
      ${state !== 'revoked' && state !== 'expired' && action('roll', 'Roll secret')}
      ${key.status !== 'revoked' && action('addresses', 'Allowed addresses')}
      ${key.status !== 'revoked' && action('revoke', 'Revoke', true)}
    </div>
    ${usageSection(view.activity)}
    <h2>Limits and today's use</h2>
    <table>
      <thead><tr><th scope="col">Limit</th><th scope="col">Allowed</th><th scope="col">Used today (UTC)</th></tr></thead>
      <tbody>${view.usage.map(
        (u) =>
          html`<tr><td>${u.name}</td><td>${u.limit.toLocaleString('en-US')}</td><td>${
            u.usedToday === null ? '—' : u.usedToday.toLocaleString('en-US')
          }</td></tr>`,
      )}</tbody>
    </table>
    ${undoJobSection(key, view.undo, now)}
    <h2 id="log">Change log</h2>
    ${logTable(key.id, view.history)}
    <p><a href="/console/keys">Back to API keys</a></p>`,
  );
}

const CONFIRM_TEXT = {
  pause: 'Pausing stops every request with this key (403 key_paused) until someone resumes it.',
  resume: 'Resuming lets this key make requests again.',
  revoke: 'Revoking ends this key for good: every request with it gets 401. This cannot be undone.',
} as const;

export function confirmPage(
  ctx: PageContext,
  key: KeyRecord,
  move: 'pause' | 'resume' | 'revoke',
  state: { reason?: string; error?: string; reasonError?: string } = {},
) {
  const title = `${move[0]!.toUpperCase()}${move.slice(1)} “${key.name}”?`;
  return page(
    ctx,
    title,
    html`${state.error && notice('bad', state.error)}
    <p>${CONFIRM_TEXT[move]}</p>
    <form method="post" action="/console/keys/${key.id}/${move}">
      ${csrfField(ctx)}
      ${
        move === 'pause' &&
        html`<div class="field">
          <label for="reason">Reason (optional)</label>
          <input type="text" id="reason" name="reason" maxlength="500" value="${state.reason ?? ''}"${describedBy('reason', state.reasonError)}>
          ${fieldError('reason', state.reasonError)}
        </div>`
      }
      <p class="actions"><button type="submit"${move === 'revoke' ? html` class="danger"` : null}>Confirm</button>
        <a href="/console/keys/${key.id}">Cancel</a></p>
    </form>`,
  );
}

/** The old secret's overlap a roll offers (seconds); 24 hours is the default. */
export const ROLL_OVERLAPS = [
  { seconds: 0, label: 'Stop it now' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 259_200, label: '3 days' },
  { seconds: 604_800, label: '7 days (the most)' },
] as const;

export function rollPage(
  ctx: PageContext,
  key: KeyRecord,
  now: number,
  state: { overlap?: number; error?: string } = {},
) {
  const chosen = state.overlap ?? 86_400;
  return page(
    ctx,
    `Roll the secret of “${key.name}”?`,
    html`${state.error && notice('bad', state.error)}
    <p>The key gets a new secret, shown once. It keeps its id, settings, limits, change log and undo.
      The old secret keeps working for the time you choose, so the integration can move to the new one without downtime.
      ${key.previousSecretExpiresAt !== null && key.previousSecretExpiresAt > now && 'The secret of the previous roll stops at once.'}</p>
    <form method="post" action="/console/keys/${key.id}/roll">
      ${csrfField(ctx)}
      <fieldset>
        <legend>The old secret keeps working for</legend>
        ${ROLL_OVERLAPS.map(
          (o) => html`<div class="choice">
            <input type="radio" id="overlap-${o.seconds}" name="overlap" value="${o.seconds}"${o.seconds === chosen ? html` checked` : null}>
            <label for="overlap-${o.seconds}">${o.label}</label>
          </div>`,
        )}
      </fieldset>
      <p class="actions"><button type="submit">Roll secret</button> <a href="/console/keys/${key.id}">Cancel</a></p>
    </form>`,
  );
}

export function addressesPage(ctx: PageContext, key: KeyRecord, state: { typed?: string; error?: string } = {}) {
  return page(
    ctx,
    `Allowed addresses of “${key.name}”`,
    html`<form method="post" action="/console/keys/${key.id}/addresses" novalidate>
      ${csrfField(ctx)}
      <div class="field">
        <label for="allowed_ips">Allowed addresses</label>
        <p class="hint" id="allowed_ips-hint">IPv4 or IPv6 addresses and CIDR ranges (<code>203.0.113.7</code>,
          <code>198.51.100.0/24</code>, <code>2001:db8::/32</code>), one a line. A request from elsewhere gets 403.
          Empty: it may be used from anywhere.</p>
        <textarea id="allowed_ips" name="allowed_ips" rows="5" spellcheck="false"
          aria-describedby="allowed_ips-hint${state.error ? ' allowed_ips-error' : ''}"${state.error ? html` aria-invalid="true"` : null}>${
            state.typed ?? key.allowedIps.join('\n')
          }</textarea>
        ${fieldError('allowed_ips', state.error)}
      </div>
      <p class="actions"><button type="submit">Save</button> <a href="/console/keys/${key.id}">Cancel</a></p>
    </form>`,
  );
}
