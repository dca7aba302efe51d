import { CARD_BRANDS } from './products.ts';
import { chance, int, pick, token } from './random.ts';

/**
 * An order's money, built so its figures always agree (SPEC "Order"):
 *   line.total     = quantity × unit_price − line.discount   (tax included in prices)
 *   subtotal       = Σ quantity × unit_price;  discount = Σ line.discount
 *   total          = subtotal − discount − gift_card − store_credit
 *   amount_refunded = Σ succeeded refunds
 *   amount_paid    = Σ succeeded payments − amount_refunded   (net of refunds)
 *   amount_due     = total − amount_paid                     (never below zero)
 * Lines are never edited: a cancellation adds lines that adjust (negate) the old ones.
 */
export interface OrderLine {
  id: string;
  name: string | null;
  type: string | null;
  category: string | null;
  quantity: number;
  unit_price: number;
  total: number;
  discount: number;
  tax: number;
  tax_rate: string | null;
  adjusts: string | null;
}

export interface Payment {
  amount: number;
  method: string | null;
  status: string | null;
  card: { brand: string | null; last4: string } | null;
  processed_at: string | null;
}

export interface Refund {
  amount: number;
  reason: string | null;
  status: string | null;
  processed_at: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class OrderDraft {
  readonly lines: OrderLine[] = [];
  readonly payments: Payment[] = [];
  readonly refunds: Refund[] = [];
  giftCard = 0;
  storeCredit = 0;

  constructor(private readonly taxRate: number) {}

  line(input: {
    name: string;
    type: string;
    category: string;
    quantity: number;
    unitPrice: number;
    discount?: number;
    taxed?: boolean;
  }): OrderLine {
    const discount = input.discount ?? 0;
    const total = input.quantity * input.unitPrice - discount;
    const taxed = input.taxed ?? true;
    const line: OrderLine = {
      id: `oli_${token(22)}`,
      name: input.name,
      type: input.type,
      category: input.category,
      quantity: input.quantity,
      unit_price: input.unitPrice,
      total,
      discount,
      tax: taxed ? Math.round((total * this.taxRate) / (1 + this.taxRate)) : 0,
      tax_rate: taxed ? this.taxRate.toFixed(2) : null,
      adjusts: null,
    };
    this.lines.push(line);
    return line;
  }

  /** Cancels every line so far with a line that negates it. */
  cancelLines(): void {
    for (const l of [...this.lines]) {
      if (l.adjusts !== null) continue;
      this.lines.push({
        ...l,
        id: `oli_${token(22)}`,
        name: `Cancelled: ${l.name}`,
        type: 'adjustment',
        quantity: -l.quantity,
        total: -l.total,
        discount: -l.discount,
        tax: -l.tax,
        adjusts: l.id,
      });
    }
  }

  get subtotal(): number {
    return this.lines.reduce((s, l) => s + l.quantity * l.unit_price, 0);
  }
  get discount(): number {
    return this.lines.reduce((s, l) => s + l.discount, 0);
  }
  get total(): number {
    return this.subtotal - this.discount - this.giftCard - this.storeCredit;
  }
  /** Money taken, before refunds. */
  get paidIn(): number {
    return this.payments.reduce((s, p) => s + (p.status === 'succeeded' ? p.amount : 0), 0);
  }
  get paid(): number {
    return this.paidIn - this.refunded;
  }
  get refunded(): number {
    return this.refunds.reduce((s, r) => s + (r.status === 'succeeded' ? r.amount : 0), 0);
  }

  pay(amount: number, at: number, method = pick(['card', 'card', 'card', 'eftpos', 'cash'])): void {
    if (amount <= 0) return;
    const card = method === 'card' ? { brand: pick(CARD_BRANDS), last4: String(int(0, 9999)).padStart(4, '0') } : null;
    // Now and then a card is declined first; a failed payment moves no money.
    if (card && chance(0.03)) {
      this.payments.push({
        amount,
        method,
        status: 'failed',
        card: { ...card, last4: String(int(0, 9999)).padStart(4, '0') },
        processed_at: iso(at),
      });
    }
    this.payments.push({ amount, method, status: 'succeeded', card, processed_at: iso(at) });
  }

  refund(amount: number, reason: string, at: number): void {
    if (amount > 0) this.refunds.push({ amount, reason, status: 'succeeded', processed_at: iso(at) });
  }

  /** The money fields of the order, in SPEC order. */
  figures() {
    const total = this.total;
    const paid = this.paid;
    if (total < 0 || paid > total) throw new Error(`seed order money does not add up (total ${total}, paid ${paid})`);
    return {
      subtotal: this.subtotal,
      discount: this.discount,
      gift_card: this.giftCard,
      store_credit: this.storeCredit,
      total,
      amount_refunded: this.refunded,
      amount_due: total - paid,
      amount_paid: paid,
    };
  }
}
