import { html, type SafeHtml } from '../html.ts';

/** A key's two pages, as tabs: what it is and may do, and the requests it made. */
export function keyTabs(keyId: string, current: 'overview' | 'requests'): SafeHtml {
  const tab = (name: typeof current, href: string, label: string) =>
    html`<a href="${href}"${name === current ? html` aria-current="page"` : null}>${label}</a>`;
  return html`<nav class="tabs" aria-label="This key">
      ${tab('overview', `/console/keys/${keyId}`, 'Overview')}
      ${tab('requests', `/console/keys/${keyId}/requests`, 'Requests')}
    </nav>`;
}
