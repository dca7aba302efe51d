import type { DocCollection } from '../doc.service.ts';
import type { Event } from './event.schema.ts';

/** One copy for every key, live or test (SPEC "Conventions", Test data). */
export const events: DocCollection<Record<string, never>, Event> = {
  table: 'events',
  object: 'event',
  idKind: 'event',
  mode: 'shared',
  filters: {},
};
