import type { KeyRecord } from '../../resources/keys/key.repo.ts';
import type { getRequest, listKeyRequests } from '../../resources/request-log/request-log.service.ts';
import { REQUEST_METHODS, STATUS_CLASSES } from '../../resources/request-log/request-log.service.ts';
import { html, type SafeHtml } from '../html.ts';
import { keyTabs } from './key-tabs.view.ts';
import { notice, page, type PageContext } from './layout.ts';

type RequestRow = Awaited<ReturnType<typeof listKeyRequests>>[number];
type RequestDetail = Awaited<ReturnType<typeof getRequest>>;

export interface RequestFilters {
  status: string;
  method: string;
  id: string;
}

const statusCell = (r: { status: number; code: string | null }) =>
  html`<span class="${r.status >= 400 ? 'status-revoked' : 'status-active'}">${r.status}</span>${r.code && html` <code>${r.code}</code>`}`;

const select = (name: string, label: string, options: readonly string[], chosen: string) =>
  html`<div class="field inline">
    <label for="${name}">${label}</label>
    <select id="${name}" name="${name}">
      <option value="">Any</option>
      ${options.map((o) => html`<option value="${o}"${o === chosen ? html` selected` : null}>${o}</option>`)}
    </select>
  </div>`;

/** A key's "Requests" tab: newest first, 50 a page, filters for status class, method and request id. */
export function keyRequestsPage(
  ctx: PageContext,
  view: { key: KeyRecord; rows: RequestRow[]; filters: RequestFilters; older: string | null; error?: string },
) {
  const { key, rows, filters } = view;
  const query = (extra: Record<string, string>) =>
    new URLSearchParams(
      Object.entries({ status: filters.status, method: filters.method, ...extra }).filter(([, v]) => v !== ''),
    ).toString();
  return page(
    ctx,
    `Requests of “${key.name}”`,
    html`${keyTabs(key.id, 'requests')}
    ${view.error && notice('bad', view.error)}
    <form method="get" action="/console/keys/${key.id}/requests" class="filters">
      ${select('status', 'Status', STATUS_CLASSES, filters.status)}
      ${select('method', 'Method', REQUEST_METHODS, filters.method)}
      <div class="field inline">
        <label for="id">Request id</label>
        <input type="text" id="id" name="id" value="${filters.id}" placeholder="req_…" spellcheck="false" autocomplete="off">
      </div>
      <p class="actions"><button type="submit">Show</button></p>
    </form>
    ${
      rows.length === 0
        ? html`<p>No requests${filters.status || filters.method ? ' match these filters' : ''} in the log (it keeps the last days the server is set to keep).</p>`
        : html`<table>
        <caption class="hint">Newest first, 50 a page</caption>
        <thead><tr><th scope="col">When (UTC)</th><th scope="col">Request</th><th scope="col">Status</th>
          <th scope="col">Duration</th><th scope="col">Address</th><th scope="col">Id</th></tr></thead>
        <tbody>${rows.map(
          (r) => html`<tr>
            <td>${r.created_at.replace('T', ' ').slice(0, 19)}</td>
            <td><code>${r.method} ${r.path.length > 80 ? `${r.path.slice(0, 80)}…` : r.path}</code></td>
            <td>${statusCell(r)}</td>
            <td>${r.duration_ms} ms</td>
            <td>${r.ip}</td>
            <td><a href="/console/requests/${r.id}"><code>${r.id}</code></a></td>
          </tr>`,
        )}</tbody>
      </table>
      ${view.older && html`<nav class="pager" aria-label="Request pages"><a href="/console/keys/${key.id}/requests?${query({ before: view.older })}">Older requests</a></nav>`}`
    }`,
  );
}

/** A body for reading: JSON pretty-printed, anything else as it was kept; escaped either way. */
function bodyBlock(label: string, id: string, text: string | null): SafeHtml {
  let shown = text;
  if (text !== null) {
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not JSON, or cut at 16 KiB: shown as kept.
    }
  }
  return html`<h2 id="${id}">${label}</h2>
    ${shown === null ? html`<p>Not kept (bodies are kept for writes and for answers of 400 or more).</p>` : html`<pre class="body" tabindex="0" aria-labelledby="${id}">${shown}</pre>`}`;
}

export function requestPage(ctx: PageContext, r: RequestDetail, keyName: string | null) {
  return page(
    ctx,
    `${r.method} ${r.path.length > 60 ? `${r.path.slice(0, 60)}…` : r.path}`,
    html`<dl class="facts">
      <dt>Request id</dt><dd><code>${r.id}</code></dd>
      <dt>When</dt><dd>${r.created_at.replace('T', ' ').slice(0, 23)} UTC</dd>
      <dt>Key</dt><dd><a href="/console/keys/${r.key}">${keyName ?? r.key}</a></dd>
      <dt>Method and path</dt><dd><code>${r.method} ${r.path}</code></dd>
      <dt>Status</dt><dd>${statusCell(r)}</dd>
      <dt>Duration</dt><dd>${r.duration_ms} ms</dd>
      <dt>Client address</dt><dd>${r.ip}</dd>
      <dt>User agent</dt><dd>${r.user_agent ?? '—'}</dd>
      <dt>Version served</dt><dd>${r.version ?? '—'}</dd>
    </dl>
    ${r.truncated && notice('info', 'A body was longer than 16 KiB: what is shown is its first 16 KiB.')}
    ${bodyBlock('Request body', 'request-body', r.request_body ?? null)}
    ${bodyBlock('Response body', 'response-body', r.response_body ?? null)}
    <p><a href="/console/keys/${r.key}/requests">The key's requests</a> · <a href="/console/keys">API keys</a></p>`,
  );
}

/** The keys page's search box: any request of the workspace by its id. */
export function requestSearch(typed = '', error?: string): SafeHtml {
  return html`<form method="get" action="/console/requests" class="filters" role="search">
      <div class="field inline">
        <label for="request-id">Find a request by its id</label>
        <input type="text" id="request-id" name="id" value="${typed}" placeholder="req_…" spellcheck="false" autocomplete="off"${
          error ? html` aria-invalid="true" aria-describedby="request-id-error"` : null
        }>
        ${error && html`<p class="error" id="request-id-error">${error}</p>`}
      </div>
      <p class="actions"><button type="submit">Find</button></p>
    </form>`;
}
