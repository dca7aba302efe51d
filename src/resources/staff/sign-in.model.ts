import { MINUTE_MS } from '../../lib/time.ts';

/**
 * Staff sign-in (docs/console.md): after 10 failed sign-ins for one email within 15 minutes, that
 * email cannot sign in for 15 minutes, with the right password too. One address is held to
 * 50 failures in 15 minutes across all emails, so nobody walks a list of addresses either.
 * A refused attempt during a lock-out is not counted, so the lock ends when it said it would.
 * A process checks one password per email and ten per address at a time (SignInGate); an
 * attempt past those is answered as a lock-out that ends a second later.
 */
export const SIGN_IN_RULES = Object.freeze({
  emailFailures: 10,
  addressFailures: 50,
  windowMs: 15 * MINUTE_MS,
  lockMs: 15 * MINUTE_MS,
  inFlightPerAddress: 10,
  busyRetryMs: 1_000,
});
