import type { DocCollection } from '../doc.service.ts';

/** One copy for every key, live or test (SPEC "Conventions", Test data). */
export const venues: DocCollection<Record<string, never>> = {
  table: 'venues',
  object: 'venue',
  idKind: 'venue',
  mode: 'shared',
  filters: {},
};
