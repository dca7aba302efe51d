import { COLLECTIONS, LIMIT_NAMES, WRITES, type LimitName } from '../resources/keys/key.model.ts';
import type { CreateKeyInput } from '../resources/keys/key.service.ts';
import { parseUtcInput } from './utc-input.ts';

/**
 * The "Create key" form as the server reads it. Only the shape is checked here (a choice
 * that is one of its options, a number that is a number, the three agreements); the rules
 * of a key are createKey's, the same the API and the CLI apply, and its field errors are
 * shown next to these fields.
 */
export const AGREEMENTS = [
  { name: 'agree_terms', label: 'I agree to the API terms' },
  { name: 'agree_aup', label: 'I agree to the acceptable use policy' },
  { name: 'agree_privacy', label: 'I agree to the data and privacy terms' },
] as const;

export interface KeyFormValues {
  name: string;
  mode: string;
  access: string;
  restricted: boolean;
  canRead: string[];
  canWrite: string[];
  contactsMasked: boolean;
  expiresAt: string;
  /** Addresses and CIDR ranges, one a line or comma-separated, as typed. */
  allowedIps: string;
  limits: Partial<Record<LimitName, string>>;
  agreed: Record<(typeof AGREEMENTS)[number]['name'], boolean>;
}

export type FormErrors = Record<string, string>;

export const EMPTY_KEY_FORM: KeyFormValues = {
  name: '',
  mode: 'test',
  access: 'read',
  restricted: false,
  canRead: [],
  canWrite: [],
  contactsMasked: false,
  expiresAt: '',
  allowedIps: '',
  limits: {},
  agreed: { agree_terms: false, agree_aup: false, agree_privacy: false },
};

type Body = Record<string, unknown>;

function text(body: Body, name: string): string {
  const v = body[name];
  return typeof v === 'string' ? v : '';
}

function list(body: Body, name: string): string[] {
  const v = body[name];
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

const ticked = (body: Body, name: string) => body[name] === 'on';

/** Addresses typed one a line, or separated by commas or spaces. */
export const addressList = (typed: string) => typed.split(/[\s,]+/).filter(Boolean);

/**
 * `workspaceRequestsPerMinute`: the form keeps a key's per-minute requests within its
 * workspace's, a limit the key could never reach otherwise. The CLI still allows
 * more, so an operator can set a key up before raising the workspace's limit.
 */
export function readKeyForm(
  raw: unknown,
  workspaceRequestsPerMinute: number,
): {
  values: KeyFormValues;
  errors: FormErrors;
  input: Omit<CreateKeyInput, 'workspaceId' | 'createdBy' | 'agreedBy'> | null;
} {
  const body = (raw !== null && typeof raw === 'object' ? raw : {}) as Body;
  const values: KeyFormValues = {
    name: text(body, 'name').slice(0, 500),
    mode: text(body, 'mode'),
    access: text(body, 'access'),
    restricted: ticked(body, 'restricted'),
    canRead: list(body, 'can_read'),
    canWrite: list(body, 'can_write'),
    contactsMasked: ticked(body, 'contacts_masked'),
    expiresAt: text(body, 'expires_at').slice(0, 40),
    allowedIps: text(body, 'allowed_ips').slice(0, 4000),
    limits: Object.fromEntries(
      LIMIT_NAMES.map((n) => [n, text(body, `limit_${n}`).trim().slice(0, 20)]).filter(([, v]) => v !== ''),
    ),
    agreed: {
      agree_terms: ticked(body, 'agree_terms'),
      agree_aup: ticked(body, 'agree_aup'),
      agree_privacy: ticked(body, 'agree_privacy'),
    },
  };
  const errors: FormErrors = {};
  if (!values.name.trim()) errors.name = 'Give the key a name.';
  if (values.mode !== 'test' && values.mode !== 'live') errors.mode = 'Choose Test or Live.';
  if (values.access !== 'read' && values.access !== 'read_write') errors.access = 'Choose Read only or Read and write.';
  if (!values.restricted && (values.canRead.length > 0 || values.canWrite.length > 0))
    errors.restricted = 'Tick "Restricted" to choose the collections and writes, or clear those choices.';
  if (values.canRead.some((c) => !(COLLECTIONS as readonly string[]).includes(c)))
    errors.can_read = 'Choose collections from the list.';
  if (values.canWrite.some((w) => !(WRITES as readonly string[]).includes(w)))
    errors.can_write = 'Choose writes from the list.';
  let expiresAt: number | null = null;
  if (values.expiresAt.trim()) {
    expiresAt = parseUtcInput(values.expiresAt);
    if (expiresAt === null) errors.expires_at = 'Give a date and time (UTC), for example 2027-01-31T09:00.';
  }
  const limits: Record<string, number> = {};
  for (const [name, v] of Object.entries(values.limits)) {
    if (!/^\d{1,12}$/.test(v)) errors[`limit_${name}`] = 'A whole number of 1 or more.';
    else limits[name] = Number(v);
  }
  if ((limits.requests_per_minute ?? 0) > workspaceRequestsPerMinute)
    errors.limit_requests_per_minute = `At most ${workspaceRequestsPerMinute}, the workspace's limit across all its keys.`;
  for (const a of AGREEMENTS) if (!values.agreed[a.name]) errors[a.name] = `Tick "${a.label}" to create a key.`;
  if (Object.keys(errors).length > 0) return { values, errors, input: null };
  return {
    values,
    errors,
    input: {
      name: values.name,
      mode: values.mode as 'test' | 'live',
      access: values.access as 'read' | 'read_write',
      ...(values.restricted ? { restricted: { canRead: values.canRead, canWrite: values.canWrite } } : {}),
      contactsMasked: values.contactsMasked,
      expiresAt,
      limits,
      allowedIps: addressList(values.allowedIps),
    },
  };
}
