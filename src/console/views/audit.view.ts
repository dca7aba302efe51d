import { AUDIT_ACTIONS, type AuditRecord } from '../../resources/audit/audit.model.ts';
import type { AuditFilter } from '../../resources/audit/audit.service.ts';
import { html } from '../html.ts';
import { notice, page, when, type PageContext } from './layout.ts';

const SOURCE_LABEL = { console: 'Console', cli: 'CLI', system: 'Service' } as const;

function detailText(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');
}

function pageLink(filter: AuditFilter, cursor: string | null): string {
  const q = new URLSearchParams();
  if (filter.actor) q.set('person', filter.actor);
  if (filter.action) q.set('action', filter.action);
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return `/console/audit${s ? `?${s}` : ''}`;
}

export function auditPage(
  ctx: PageContext,
  view: { entries: AuditRecord[]; next: string | null; filter: AuditFilter; paged: boolean; error?: string },
) {
  const { filter } = view;
  const rows = view.entries.map(
    (e) => html`<tr>
        <td>${when(e.at)}</td>
        <td>${e.actor}</td>
        <td>${SOURCE_LABEL[e.source]}</td>
        <td>${e.address ?? '—'}</td>
        <td><code>${e.action}</code></td>
        <td>${e.target ? html`<code>${e.target}</code>` : '—'}</td>
        <td>${detailText(e.detail) || '—'}</td>
      </tr>`,
  );
  return page(
    ctx,
    'Audit log',
    html`${view.error && notice('bad', view.error)}
    <p>Who did what in this workspace, from the console and the CLI: keys, webhooks, undo, staff and sign-ins,
      newest first, kept for a year.</p>
    <form method="get" action="/console/audit" class="filters" role="search" aria-label="Filter the audit log">
      <div class="field">
        <label for="person">Person (email or operator name)</label>
        <input type="text" id="person" name="person" maxlength="320" value="${filter.actor ?? ''}">
      </div>
      <div class="field">
        <label for="action">Action</label>
        <select id="action" name="action">
          <option value="">Any action</option>
          ${AUDIT_ACTIONS.map(
            (a) => html`<option value="${a}"${a === filter.action ? html` selected` : null}>${a}</option>`,
          )}
        </select>
      </div>
      <div class="field"><button type="submit">Filter</button></div>
    </form>
    ${
      view.entries.length === 0
        ? html`<p>No entries${filter.actor || filter.action ? ' match these filters' : ''}.</p>`
        : html`<table>
        <caption class="hint">Audit entries, newest first</caption>
        <thead><tr>
          <th scope="col">When</th><th scope="col">Who</th><th scope="col">From</th><th scope="col">Address</th>
          <th scope="col">Action</th><th scope="col">On</th><th scope="col">Detail</th>
        </tr></thead>
        <tbody>${rows}</tbody>
      </table>`
    }
    <nav class="pager" aria-label="Audit log pages">
      ${view.paged && html`<a href="${pageLink(filter, null)}">Newest</a>`}
      ${view.next && html`<a href="${pageLink(filter, view.next)}">Older</a>`}
    </nav>`,
  );
}
