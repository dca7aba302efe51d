import type { KeyRecord } from '../../resources/keys/key.repo.ts';
import { html } from '../html.ts';
import { page, type PageContext } from './layout.ts';

/**
 * A customer as the API shows it now, for a person weighing an undo: every top-level field
 * with its value as JSON (so text, numbers, null and lists read unambiguously).
 */
export function customerPage(ctx: PageContext, key: KeyRecord, id: string, record: Record<string, unknown> | null) {
  return page(
    ctx,
    `Customer ${id}`,
    html`${
      record === null
        ? html`<p>No ${key.mode} customer <code>${id}</code> exists now: it was deleted, or never was.</p>`
        : html`<p class="hint">The record now, as the API answers it to a key that sees contacts in full.</p>
        <table><thead><tr><th scope="col">Field</th><th scope="col">Value now</th></tr></thead>
        <tbody>${Object.entries(record).map(
          ([field, value]) =>
            html`<tr><th scope="row">${field}</th><td><code>${JSON.stringify(value)}</code></td></tr>`,
        )}</tbody></table>`
    }
    <p><a href="/console/keys/${key.id}/undo">Back to the undo preview</a> · <a href="/console/keys/${key.id}#log">Back to the key's change log</a></p>`,
  );
}
