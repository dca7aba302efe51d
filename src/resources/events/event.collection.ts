import type { DocCollection } from '../doc.service.ts';

/** One copy for every key, live or test (SPEC "Conventions", Test data). */
export const events: DocCollection<Record<string, never>> = {
  table: 'events',
  object: 'event',
  idKind: 'event',
  mode: 'shared',
  filters: {},
};
