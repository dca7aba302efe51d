import type { DocCollection } from '../doc.service.ts';
import type { Venue } from './venue.schema.ts';

/** One copy for every key, live or test (SPEC "Conventions", Test data). */
export const venues: DocCollection<Record<string, never>, Venue> = {
  table: 'venues',
  object: 'venue',
  idKind: 'venue',
  mode: 'shared',
  filters: {},
};
