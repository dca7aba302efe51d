import type { KeyRecord } from '../../resources/keys/key.repo.ts';
import { keyState } from '../../resources/keys/key.service.ts';
import { html, type SafeHtml } from '../html.ts';
import { notice, page, when, type PageContext } from './layout.ts';
import { requestSearch } from './requests.view.ts';

export const MODE_LABEL = { test: 'Test', live: 'Live' } as const;
export const ACCESS_LABEL = { read: 'Read only', read_write: 'Read and write' } as const;

export function statusText(key: KeyRecord, now: number): SafeHtml {
  const state = keyState(key, now);
  if (state === 'paused')
    return html`<span class="status-paused">Paused</span>${key.pauseReason && html`: ${key.pauseReason}`}`;
  return html`<span class="status-${state}">${state[0]!.toUpperCase()}${state.slice(1)}</span>`;
}

export function keysPage(
  ctx: PageContext,
  view: {
    keys: KeyRecord[];
    inUse: number;
    max: number;
    now: number;
    message?: string;
    search?: { typed: string; error: string };
  },
) {
  const rows = view.keys.map(
    (k) => html`<tr>
        <td><a href="/console/keys/${k.id}">${k.name}</a></td>
        <td>${MODE_LABEL[k.mode]}</td>
        <td>${ACCESS_LABEL[k.access]}</td>
        <td>${k.kind === 'restricted' ? 'Restricted' : 'Standard'}</td>
        <td>${k.createdBy ?? '—'}</td>
        <td>${when(k.createdAt)}</td>
        <td>${k.lastUsedAt === null ? 'Never' : when(k.lastUsedAt)}</td>
        <td>${statusText(k, view.now)}</td>
      </tr>`,
  );
  const full = view.inUse >= view.max;
  return page(
    ctx,
    'API keys',
    html`${view.message && notice('ok', view.message)}
    ${requestSearch(view.search?.typed, view.search?.error)}
    <p>${view.inUse} of ${view.max} keys in use (revoked keys do not count).</p>
    <p class="actions">${
      full
        ? html`<span>Revoke a key before creating another.</span>`
        : html`<a class="button" href="/console/keys/new">Create key</a>`
    }</p>
    ${
      view.keys.length === 0
        ? html`<p>This workspace has no keys yet.</p>`
        : html`<table>
        <caption class="hint">Every key of the workspace, newest first</caption>
        <thead><tr>
          <th scope="col">Name</th><th scope="col">Mode</th><th scope="col">Access</th><th scope="col">Kind</th>
          <th scope="col">Created by</th><th scope="col">Created at</th><th scope="col">Last used</th><th scope="col">Status</th>
        </tr></thead>
        <tbody>${rows}</tbody>
      </table>`
    }`,
  );
}
