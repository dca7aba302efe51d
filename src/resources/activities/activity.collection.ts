import type { DocCollection } from '../doc.service.ts';

/** One copy for every key, live or test (SPEC "Conventions", Test data). */
export const activities: DocCollection<Record<string, never>> = {
  table: 'activities',
  object: 'activity',
  idKind: 'activity',
  mode: 'shared',
  filters: {},
};
