import { existsSync, readFileSync } from 'node:fs';

/**
 * The /docs guide "Webhooks" is docs/webhooks.md itself, so the repository and the reference
 * never tell a receiver two different things. Read once at start from the checkout the server
 * runs from (as Scalar's bundle is read from node_modules), looking upward from this module
 * because src/, dist/ and the bundle's chunks sit at different depths.
 */
const GUIDE = 'docs/webhooks.md';

export function webhooksGuide(): string {
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    const file = new URL(GUIDE, dir);
    if (existsSync(file)) return oneLevelDown(readFileSync(file, 'utf8'));
    if (dir.pathname === '/')
      throw new Error(`${GUIDE} is missing: the server runs from a checkout of its repository.`);
  }
}

/** Every heading one level deeper, so the document's `# Webhooks` sits among the guides' `##`. */
function oneLevelDown(markdown: string): string {
  let inCode = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (line.startsWith('```')) inCode = !inCode;
      return !inCode && /^#{1,5} /.test(line) ? `#${line}` : line;
    })
    .join('\n');
}
