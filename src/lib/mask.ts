/**
 * DECISIONS "Keys": a contacts-masked key sees `j***@example.com` and `+*********12`.
 */
export function maskEmail(email: string | null): string | null {
  if (email === null) return null;
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  // The first character whole: half of a surrogate pair would be no character at all.
  return `${String.fromCodePoint(email.codePointAt(0)!)}***@${email.slice(at + 1)}`;
}

export function maskPhone(phone: string | null): string | null {
  if (phone === null) return null;
  const digits = phone.replace(/\D/g, '');
  if (digits.length <= 2) return `+${'*'.repeat(digits.length)}`;
  return `+${'*'.repeat(digits.length - 2)}${digits.slice(-2)}`;
}
