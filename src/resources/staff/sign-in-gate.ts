import { SIGN_IN_RULES } from './sign-in.model.ts';

/**
 * The sign-ins this process runs at once (docs/console.md "Lock-out"): one per email and
 * SIGN_IN_RULES.inFlightPerAddress per address, so a flood of guesses costs at most that many
 * hashes at a time and leaves the thread pool that hashes everyone's passwords to the rest.
 */
export class SignInGate {
  private readonly emails = new Set<string>();
  private readonly addresses = new Map<string, number>();

  /** A place for one attempt, or null when its email or its address has none free; call the result to give it back. */
  enter(email: string, address: string): (() => void) | null {
    const atAddress = this.addresses.get(address) ?? 0;
    if (this.emails.has(email) || atAddress >= SIGN_IN_RULES.inFlightPerAddress) return null;
    this.emails.add(email);
    this.addresses.set(address, atAddress + 1);
    return () => {
      this.emails.delete(email);
      const left = (this.addresses.get(address) ?? 1) - 1;
      if (left > 0) this.addresses.set(address, left);
      else this.addresses.delete(address);
    };
  }
}
