/**
 * DECISIONS "Customers": with a date of birth, `adult` is 18 or older today: born on or
 * before the returned `yyyy-MM-dd`, today's date 18 years back. Compared as text, which the
 * database does (customer-json.repo.ts): a cutoff of 29 February in a year without one
 * still orders right, and someone born on 29 February turns 18 on 1 March in a year without it.
 */
export function adultCutoff(now: number): string {
  const today = new Date(now);
  const y = String(today.getUTCFullYear() - 18).padStart(4, '0');
  const m = String(today.getUTCMonth() + 1).padStart(2, '0');
  const d = String(today.getUTCDate()).padStart(2, '0');
  return `${y}-${m}-${d}`;
}

export function isAdultOn(dateOfBirth: string, now: number): boolean {
  return dateOfBirth <= adultCutoff(now);
}
