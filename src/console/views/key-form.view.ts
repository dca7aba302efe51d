import { COLLECTIONS, DEFAULT_KEY_LIMITS, LIMIT_NAMES, WRITES } from '../../resources/keys/key.model.ts';
import { html, type HtmlValue } from '../html.ts';
import { AGREEMENTS, type FormErrors, type KeyFormValues } from '../key-form.ts';
import { csrfField, describedBy, fieldError, notice, page, when, type PageContext } from './layout.ts';

const checked = (on: boolean) => (on ? html` checked` : null);

function radios(
  name: string,
  legend: string,
  options: readonly { value: string; label: string }[],
  current: string,
  error: string | undefined,
) {
  return html`<fieldset${describedBy(name, error)}>
      <legend>${legend}</legend>
      ${fieldError(name, error)}
      ${options.map(
        (o) => html`<div class="choice">
          <input type="radio" id="${name}-${o.value}" name="${name}" value="${o.value}"${checked(current === o.value)}>
          <label for="${name}-${o.value}">${o.label}</label>
        </div>`,
      )}
    </fieldset>`;
}

function boxes(name: string, legend: string, options: readonly string[], current: string[], error?: string) {
  return html`<fieldset${describedBy(name, error)}>
      <legend>${legend}</legend>
      ${fieldError(name, error)}
      ${options.map(
        (o) => html`<div class="choice">
          <input type="checkbox" id="${name}-${o}" name="${name}" value="${o}"${checked(current.includes(o))}>
          <label for="${name}-${o}">${o}</label>
        </div>`,
      )}
    </fieldset>`;
}

const LIMIT_LABELS: Record<(typeof LIMIT_NAMES)[number], string> = {
  requests_per_minute: 'Requests per minute',
  requests_per_day: 'Requests per day',
  writes_per_minute: 'Writes per minute',
  writes_per_day: 'Writes per day',
  removals_per_day: 'Removals per day',
  page_size_default: 'Default page size',
  page_size_max: 'Largest page size',
};

export function keyFormPage(
  ctx: PageContext,
  state: { values: KeyFormValues; errors: FormErrors; workspaceRequestsPerMinute: number },
) {
  const { values: v, errors: e } = state;
  const limitField = (name: (typeof LIMIT_NAMES)[number]): HtmlValue => {
    const id = `limit_${name}`;
    const hint =
      name === 'requests_per_minute'
        ? `Default ${DEFAULT_KEY_LIMITS[name]}; the workspace allows ${state.workspaceRequestsPerMinute} across all keys.`
        : `Default ${DEFAULT_KEY_LIMITS[name]}.`;
    return html`<div class="field">
        <label for="${id}">${LIMIT_LABELS[name]}</label>
        <p class="hint" id="${id}-hint">${hint}</p>
        <input type="number" min="1" step="1" id="${id}" name="${id}" value="${v.limits[name] ?? ''}"
          aria-describedby="${id}-hint${e[id] ? ` ${id}-error` : ''}"${e[id] ? html` aria-invalid="true"` : null}>
        ${fieldError(id, e[id])}
      </div>`;
  };
  return page(
    ctx,
    'Create key',
    html`${Object.keys(e).length > 0 && notice('bad', 'The key was not created; see the fields marked below.')}
    <form method="post" action="/console/keys" novalidate>
      ${csrfField(ctx)}
      <div class="field">
        <label for="name">Name</label>
        <input type="text" id="name" name="name" maxlength="100" required value="${v.name}"${describedBy('name', e.name)}>
        ${fieldError('name', e.name)}
      </div>
      ${radios(
        'mode',
        'Mode',
        [
          { value: 'test', label: 'Test' },
          { value: 'live', label: 'Live' },
        ],
        v.mode,
        e.mode,
      )}
      ${radios(
        'access',
        'Access',
        [
          { value: 'read', label: 'Read only' },
          { value: 'read_write', label: 'Read and write' },
        ],
        v.access,
        e.access,
      )}
      <h2>Restrictions</h2>
      <div class="choice">
        <input type="checkbox" id="restricted" name="restricted"${checked(v.restricted)}${describedBy('restricted', e.restricted)}>
        <label for="restricted">Restricted: it may read and write only what is chosen below</label>
        ${fieldError('restricted', e.restricted)}
      </div>
      ${boxes('can_read', 'Collections it may read (can_read)', COLLECTIONS, v.canRead, e.can_read)}
      ${boxes('can_write', 'Writes it may make (can_write)', WRITES, v.canWrite, e.can_write)}
      <div class="choice">
        <input type="checkbox" id="contacts_masked" name="contacts_masked"${checked(v.contactsMasked)}>
        <label for="contacts_masked">Contacts masked: never show customers' email or phone in full</label>
      </div>
      <div class="field">
        <label for="expires_at">Expires at (UTC, optional)</label>
        <input type="datetime-local" id="expires_at" name="expires_at" value="${v.expiresAt}"${describedBy('expires_at', e.expires_at)}>
        ${fieldError('expires_at', e.expires_at)}
      </div>
      <div class="field">
        <label for="allowed_ips">Allowed addresses (optional)</label>
        <p class="hint" id="allowed_ips-hint">IPv4 or IPv6 addresses and CIDR ranges, one a line. Empty: it may be used from anywhere.</p>
        <textarea id="allowed_ips" name="allowed_ips" rows="3" spellcheck="false"
          aria-describedby="allowed_ips-hint${e.allowed_ips ? ' allowed_ips-error' : ''}"${e.allowed_ips ? html` aria-invalid="true"` : null}>${v.allowedIps}</textarea>
        ${fieldError('allowed_ips', e.allowed_ips)}
      </div>
      <h2>Limits</h2>
      <p class="hint">Leave a limit empty for its default.</p>
      ${fieldError('limits', e.limits)}
      ${LIMIT_NAMES.map(limitField)}
      <h2>Agreements</h2>
      ${AGREEMENTS.map(
        (a) => html`<div class="choice">
          <input type="checkbox" id="${a.name}" name="${a.name}" required${checked(v.agreed[a.name])}${describedBy(a.name, e[a.name])}>
          <label for="${a.name}">${a.label}</label>
          ${fieldError(a.name, e[a.name])}
        </div>`,
      )}
      <p class="actions"><button type="submit">Create key</button> <a href="/console/keys">Cancel</a></p>
    </form>`,
  );
}

/**
 * The secret, once: in the answer to the create or the roll and nowhere else, ever (SPEC
 * "Authentication" 4). `rolled`: the key was rolled, and its old secret works until then (null: no more).
 */
export function secretPage(
  ctx: PageContext,
  key: { id: string; name: string },
  secret: string | null,
  rolled?: { previousUntil: number | null },
) {
  const done = rolled
    ? html`Rolled the key “${key.name}”. Copy its new secret now: it is shown this once and never again. ${
        rolled.previousUntil === null
          ? 'The old secret no longer works.'
          : html`The old secret works until ${when(rolled.previousUntil)}.`
      }`
    : html`Created the key “${key.name}”. Copy its secret now: it is shown this once and never again.`;
  return page(
    ctx,
    secret ? (rolled ? 'Key rolled' : 'Key created') : 'Key secret',
    secret
      ? html`${notice('ok', done)}
    <div class="field">
      <label for="secret">Secret</label>
      <div class="secret-row">
        <input type="text" id="secret" value="${secret}" readonly spellcheck="false" autocomplete="off">
        <button type="button" data-copy="secret">Copy</button>
      </div>
      <p class="hint" id="secret-status" role="status"></p>
    </div>
    <p><a href="/console/keys/${key.id}">Go to the key's page</a> · <a href="/console/keys">Back to API keys</a></p>`
      : html`${notice('info', 'A key’s secret is shown only once, when it is created or rolled. Roll the key if it was lost.')}
    <p><a href="/console/keys/${key.id}">Go to the key's page</a> · <a href="/console/keys">Back to API keys</a></p>`,
  );
}
