import type { DocRecord } from '../db/doc-rows.ts';
import { newId } from '../lib/ids.ts';
import { DAY_MS } from '../lib/time.ts';
import { chance, int, token } from './random.ts';

/**
 * Gift cards (SPEC "Gift card", live only) and their movements. Every movement carries
 * a signed amount and the balance after it, so the balance always equals the last
 * movement's balance_after and the sum of all amounts. Movements are appended in time
 * order because the chunk builds orders oldest first.
 */
export interface Movement {
  type: string;
  amount: number;
  balance_after: number;
  order: string | null;
  booking: string | null;
  created_at: string;
}

interface SeedGiftCard {
  id: string;
  createdAt: number;
  updatedAt: number;
  balance: number;
  active: boolean;
  holder: string | null;
  buyer: string | null;
  recipientName: string | null;
  deliveredAt: number | null;
  movements: Movement[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export class GiftCardPool {
  private readonly cards: SeedGiftCard[] = [];

  constructor(private readonly now: number) {}

  issue(input: {
    id?: string;
    createdAt: number;
    value: number;
    buyer: string;
    holder: string | null;
    recipientName: string | null;
    orderId: string;
  }): string {
    const delivered = input.createdAt + int(1, 72) * 3_600_000;
    const card: SeedGiftCard = {
      id: input.id ?? newId('gift_card'),
      createdAt: input.createdAt,
      updatedAt: input.createdAt,
      balance: 0,
      active: true,
      holder: input.holder,
      buyer: input.buyer,
      recipientName: input.recipientName,
      deliveredAt: delivered <= this.now ? delivered : null,
      movements: [],
    };
    this.move(card, 'issue', input.value, input.orderId, null, input.createdAt);
    this.cards.push(card);
    return card.id;
  }

  /** Pays up to `wanted` of an order from a card that existed before it; the amount taken. */
  redeem(at: number, wanted: number, orderId: string, bookingId: string | null): number {
    const usable = this.cards.filter((c) => c.active && c.balance > 0 && c.updatedAt < at);
    if (usable.length === 0 || wanted <= 0) return 0;
    const card = usable[Math.floor(Math.random() * usable.length)]!;
    const amount = Math.min(card.balance, wanted);
    this.move(card, 'redeem', -amount, orderId, bookingId, at);
    return amount;
  }

  private move(
    card: SeedGiftCard,
    type: string,
    amount: number,
    order: string | null,
    booking: string | null,
    at: number,
  ) {
    card.balance += amount;
    card.updatedAt = at;
    card.movements.push({ type, amount, balance_after: card.balance, order, booking, created_at: iso(at) });
  }

  /** The chunk's cards as records; a few were cancelled by staff since (balance voided). */
  records(): DocRecord[] {
    return this.cards.map((card) => {
      if (chance(0.02) && card.updatedAt < this.now - DAY_MS) {
        this.move(
          card,
          'void',
          -card.balance,
          null,
          null,
          card.updatedAt + Math.floor(Math.random() * (this.now - card.updatedAt)),
        );
        card.active = false;
      }
      return {
        id: card.id,
        created_at: card.createdAt,
        updated_at: card.updatedAt,
        data: {
          code_last4: token(4).toUpperCase(),
          balance: card.balance,
          expires_at: iso(card.createdAt + 3 * 365 * DAY_MS),
          active: card.active,
          holder: card.holder,
          buyer: card.buyer,
          recipient_name: card.recipientName,
          delivered_at: card.deliveredAt === null ? null : iso(card.deliveredAt),
          movements: card.movements,
        },
      };
    });
  }
}
