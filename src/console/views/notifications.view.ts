import type { OutboxTable } from '../../db/tables/console.ts';
import { html } from '../html.ts';
import { page, when, type PageContext } from './layout.ts';

export function notificationsPage(
  ctx: PageContext,
  view: { emails: OutboxTable[]; page: number; pages: number; total: number; smtp: boolean },
) {
  return page(
    ctx,
    'Notifications',
    html`<p>${
      view.smtp
        ? 'Emails the SMTP server refused are kept here, with its answer.'
        : 'No SMTP server is configured (SMTP_URL), so the emails the service would send are kept here.'
    }</p>
    ${
      view.total === 0
        ? html`<p>No emails are waiting.</p>`
        : html`${view.emails.map(
            (e) => html`<article class="notice">
            <h2>${e.subject}</h2>
            <p class="hint">To ${e.recipient}, ${when(e.created_at)}${e.error && html`; not sent: ${e.error}`}</p>
            <pre class="fields">${e.body}</pre>
          </article>`,
          )}
        <nav class="pager" aria-label="Notification pages">
          ${view.page > 1 && html`<a href="/console/notifications?page=${view.page - 1}">Newer</a>`}
          <span>Page ${view.page} of ${view.pages}</span>
          ${view.page < view.pages && html`<a href="/console/notifications?page=${view.page + 1}">Older</a>`}
        </nav>`
    }`,
  );
}
