import { z } from 'zod';

/**
 * The customer body fields (SPEC "Customer body fields") as tool arguments, described for a
 * model. Only their types are checked here: the API applies its own rules (lengths, unique
 * email, phone numbers, consent) and its answer says what was wrong.
 */
const text = (what: string) => z.string().nullable().optional().describe(`${what} Null clears it.`);

export const customerFields = {
  last_name: text('Last name.'),
  nickname: text('Nickname.'),
  company: text('Company name.'),
  email: z
    .string()
    .nullable()
    .optional()
    .describe(
      'Email address, stored lowercase; one customer per email (check first with list_records, collection customers, email filter). Once a customer has an email it cannot be changed or cleared.',
    ),
  phone: z
    .string()
    .nullable()
    .optional()
    .describe(
      'Phone number in any readable form (stored as E.164, e.g. +61412345678). Once a customer has a phone it cannot be changed or cleared.',
    ),
  date_of_birth: text('Date of birth, yyyy-MM-dd.'),
  gender: z.enum(['male', 'female', 'other']).nullable().optional().describe('male, female or other. Null clears it.'),
  adult: z.boolean().optional().describe('Age group (true for an adult); used only while there is no date_of_birth.'),
  marketing_consent: z
    .boolean()
    .optional()
    .describe('Only false is accepted: this API cannot give marketing consent; true is refused.'),
  how_heard_about_us: text('How they heard about the venue.'),
  address: z
    .object({
      line1: z.string().nullable().optional(),
      line2: z.string().nullable().optional(),
      suburb: z.string().nullable().optional(),
      state: z.string().nullable().optional(),
      postcode: z.string().nullable().optional(),
      country: z.string().nullable().optional(),
    })
    .optional()
    .describe('Postal address; on an update only the members sent change.'),
};
