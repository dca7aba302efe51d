import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from '../../src/console/html.ts';

describe('the html template escapes by default', () => {
  it('escapes every interpolated string, attribute quotes included', () => {
    const name = `<script>alert("x")</script>' & more`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; &amp; more">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; &amp; more</p>',
    );
  });

  it('keeps nested templates as they are, and escapes inside lists', () => {
    const items = ['a<b', 'c'].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${html`<hr>`}`.value).toBe('<ul><li>a&lt;b</li><li>c</li></ul><hr>');
  });

  it('renders nothing for false, null and undefined, and numbers as text', () => {
    expect(html`${false}${null}${undefined}${0}${12.5}`.value).toBe('012.5');
  });

  it('escapeHtml leaves plain text alone', () => {
    expect(escapeHtml('plain text 123')).toBe('plain text 123');
  });
});
