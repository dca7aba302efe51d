import { anyEq } from '../doc.repo.ts';
import type { DocCollection } from '../doc.service.ts';

type GiftCardFilterParams = {
  customer?: string;
};

/** Real records only: a test key sees an empty list (DECISIONS "Lists and ids"). */
export const giftCards: DocCollection<GiftCardFilterParams> = {
  table: 'gift_cards',
  object: 'gift_card',
  idKind: 'gift_card',
  mode: 'live-only',
  // A customer's gift cards are the ones they hold and the ones they bought.
  filters: { customer: anyEq('holder_id', 'buyer_id') },
};
