import type { EndpointHealth, WebhookDelivery, WebhookEndpoint } from '../../resources/webhooks/webhook.model.ts';
import { html } from '../html.ts';
import { csrfField, describedBy, fieldError, notice, page, type PageContext, when } from './layout.ts';

/** The developer settings' Webhooks pages (DECISIONS "Webhooks"): list and create, one endpoint, its secret once. */
export interface WebhookFormValues {
  url: string;
  mode: 'test' | 'live';
  events: string;
  contacts_masked: boolean;
}

export const EMPTY_WEBHOOK_FORM: WebhookFormValues = { url: '', mode: 'test', events: '*', contacts_masked: false };

const STATUS = { enabled: 'Enabled', disabled: 'Disabled' } as const;

/** The status with how the endpoint is doing: why it was disabled, or since when it fails and whether its key managers were warned. */
function statusText(e: WebhookEndpoint, health: EndpointHealth): string {
  if (e.status === 'disabled') return health.disabledReason ? `Disabled: ${health.disabledReason}` : STATUS.disabled;
  if (health.failingSince === null) return STATUS.enabled;
  return `Enabled, failing since ${when(health.failingSince)}${health.warnedAt === null ? '' : ' — warned'}`;
}

/** An endpoint as the pages list it. */
export interface EndpointRow {
  endpoint: WebhookEndpoint;
  health: EndpointHealth;
}

export function webhooksPage(
  ctx: PageContext,
  view: { endpoints: EndpointRow[]; values: WebhookFormValues; error?: string; message?: string },
) {
  const rows = view.endpoints.map(
    ({ endpoint: e, health }) => html`<tr>
        <td><a href="/console/webhooks/${e.id}">${e.url}</a></td>
        <td>${e.mode === 'live' ? 'Live' : 'Test'}</td>
        <td>${e.events.join(', ')}</td>
        <td>${e.contacts_masked ? 'Masked' : 'Full'}</td>
        <td>${statusText(e, health)}</td>
      </tr>`,
  );
  const v = view.values;
  return page(
    ctx,
    'Webhooks',
    html`${view.message && notice('ok', view.message)}
    <p>Events about this workspace's customers (and the records an import writes) are posted to these
      addresses, signed as Standard Webhooks.</p>
    ${
      view.endpoints.length === 0
        ? html`<p>This workspace has no webhook endpoints yet.</p>`
        : html`<table>
        <caption class="hint">Every endpoint of the workspace, newest first</caption>
        <thead><tr><th scope="col">URL</th><th scope="col">Mode</th><th scope="col">Events</th>
          <th scope="col">Contacts</th><th scope="col">Status</th></tr></thead>
        <tbody>${rows}</tbody>
      </table>`
    }
    <h2>Add an endpoint</h2>
    <form method="post" action="/console/webhooks">
      ${csrfField(ctx)}
      <div class="field">
        <label for="url">URL</label>
        <input id="url" name="url" type="url" required value="${v.url}"${describedBy('url', view.error)}>
        ${fieldError('url', view.error)}
      </div>
      <div class="field">
        <label for="mode">Mode</label>
        <select id="mode" name="mode">
          <option value="test"${v.mode === 'test' ? ' selected' : ''}>Test</option>
          <option value="live"${v.mode === 'live' ? ' selected' : ''}>Live</option>
        </select>
      </div>
      <div class="field">
        <label for="events">Event types (comma-separated, or * for all)</label>
        <input id="events" name="events" value="${v.events}">
      </div>
      <div class="field">
        <input id="contacts_masked" name="contacts_masked" type="checkbox"${v.contacts_masked ? ' checked' : ''}>
        <label for="contacts_masked">Mask customers' email and phone</label>
      </div>
      <button type="submit">Add endpoint</button>
    </form>`,
  );
}

/** The "Resend failed deliveries since" form's value (a datetime-local, UTC) and its error. */
export interface ResendSinceForm {
  since: string;
  error?: string;
}

export function webhookPage(
  ctx: PageContext,
  view: EndpointRow & {
    deliveries: WebhookDelivery[];
    resend: ResendSinceForm;
    secret?: string | null;
    message?: string;
  },
) {
  const e = view.endpoint;
  const resend = view.resend;
  const action = (path: string, label: string) => html`<form method="post" action="/console/webhooks/${e.id}/${path}">
      ${csrfField(ctx)}<button type="submit">${label}</button></form>`;
  const rows = view.deliveries.map(
    (d) => html`<tr>
        <td><code>${d.event}</code></td>
        <td>${d.type}</td>
        <td>${d.status}</td>
        <td>${String(d.attempts)}</td>
        <td>${d.last_status === null ? (d.last_error ?? '—') : String(d.last_status)}</td>
        <td>${d.next_attempt_at ?? '—'}</td>
        <td>${action(`deliveries/${d.event}/resend`, 'Resend')}</td>
      </tr>`,
  );
  return page(
    ctx,
    `Webhook ${e.url}`,
    html`${view.message && notice('ok', view.message)}
    ${
      view.secret &&
      html`${notice('info', 'This signing secret is shown once. Store it now: receivers verify deliveries with it.')}
      <div class="field"><label for="secret">Signing secret</label>
        <input id="secret" readonly value="${view.secret}"></div>`
    }
    <dl>
      <dt>Mode</dt><dd>${e.mode === 'live' ? 'Live' : 'Test'}</dd>
      <dt>Events</dt><dd>${e.events.join(', ')}</dd>
      <dt>Contacts</dt><dd>${e.contacts_masked ? 'Masked' : 'Full'}</dd>
      <dt>Status</dt><dd>${statusText(e, view.health)}</dd>
      <dt>Created by</dt><dd>${e.created_by}</dd>
    </dl>
    <div class="actions">
      ${action('test', 'Send test event')}
      ${e.status === 'enabled' ? action('disable', 'Disable') : action('enable', 'Enable')}
      ${action('rotate', 'Rotate secret')}
      <form method="get" action="/console/webhooks/${e.id}/delete"><button type="submit" class="danger">Delete</button></form>
    </div>
    <h2>Resend failed deliveries</h2>
    <form method="post" action="/console/webhooks/${e.id}/resend-failed">
      ${csrfField(ctx)}
      <div class="field">
        <label for="since">Resend failed deliveries since (UTC)</label>
        <p class="hint" id="since-hint">Every delivery to this endpoint that failed and was made at or after this time
          is sent again now${e.status === 'disabled' ? ', once the endpoint is enabled' : ''}.</p>
        <input type="datetime-local" id="since" name="since" step="1" required value="${resend.since}"
          aria-describedby="since-hint${resend.error ? ' since-error' : ''}"${resend.error ? html` aria-invalid="true"` : null}>
        ${fieldError('since', resend.error)}
      </div>
      <button type="submit">Resend failed deliveries</button>
    </form>
    <h2>Recent deliveries</h2>
    ${
      view.deliveries.length === 0
        ? html`<p>No deliveries yet.</p>`
        : html`<table>
        <caption class="hint">Newest first</caption>
        <thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Status</th>
          <th scope="col">Attempts</th><th scope="col">Last status or error</th><th scope="col">Next attempt</th>
          <th scope="col"><span class="hint">Action</span></th></tr></thead>
        <tbody>${rows}</tbody>
      </table>`
    }`,
  );
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The confirmation before an endpoint is deleted: what goes with it, then the form that deletes. */
export function deleteWebhookPage(
  ctx: PageContext,
  view: { endpoint: WebhookEndpoint; deliveries: number; pending: number },
) {
  const e = view.endpoint;
  return page(
    ctx,
    `Delete the webhook endpoint ${e.url}?`,
    html`<dl class="facts">
      <dt>URL</dt><dd>${e.url}</dd>
      <dt>Mode</dt><dd>${e.mode === 'live' ? 'Live' : 'Test'}</dd>
      <dt>Events</dt><dd>${e.events.join(', ')}</dd>
      <dt>Status</dt><dd>${STATUS[e.status]}</dd>
      <dt>Deliveries</dt><dd>${plural(view.deliveries, 'delivery', 'deliveries')} recorded, ${view.pending.toLocaleString('en-US')} of them waiting to be sent</dd>
    </dl>
    <p>Deleting the endpoint stops every event to this address at once and removes its record of deliveries.
      ${
        view.pending > 0
          ? html`The ${plural(view.pending, 'delivery', 'deliveries')} still waiting will never be sent. `
          : null
      }This cannot be undone: to receive events here again, add the endpoint anew (it gets a new secret).</p>
    <form method="post" action="/console/webhooks/${e.id}/delete">
      ${csrfField(ctx)}
      <p class="actions"><button type="submit" class="danger">Delete endpoint</button>
        <a href="/console/webhooks/${e.id}">Cancel</a></p>
    </form>`,
  );
}
