import type { DocCollection } from '../doc.service.ts';

/** One copy for every key, live or test (SPEC "Conventions", Test data). */
export const packages: DocCollection<Record<string, never>> = {
  table: 'packages',
  object: 'package',
  idKind: 'package',
  mode: 'shared',
  filters: {},
};
