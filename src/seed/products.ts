/**
 * What an entertainment venue sells: the pools the seeder draws its activities,
 * packages, events, tags, lists and counter items from. Prices are in cents of the
 * workspace's currency.
 */
export interface ActivityIdea {
  name: string;
  description: string;
  pricing: 'per_head' | 'flat_rate';
  adult?: number;
  junior?: number | null;
  flat?: number;
  minutes: number;
  maxGuests: number;
}

export const ACTIVITY_IDEAS: ActivityIdea[] = [
  {
    name: 'Ten-Pin Bowling',
    description: 'A game of bowling on a private lane.',
    pricing: 'per_head',
    adult: 2500,
    junior: 1800,
    minutes: 60,
    maxGuests: 8,
  },
  {
    name: 'Laser Tag',
    description: 'Two rounds in the blacklight arena.',
    pricing: 'per_head',
    adult: 2200,
    junior: 1800,
    minutes: 30,
    maxGuests: 20,
  },
  {
    name: 'Karaoke Room',
    description: 'A private room with a song library of 40,000 tracks.',
    pricing: 'flat_rate',
    flat: 9000,
    minutes: 60,
    maxGuests: 12,
  },
  {
    name: 'Escape Room: The Vault',
    description: 'Break out of the bank vault in 60 minutes.',
    pricing: 'per_head',
    adult: 4500,
    junior: 3500,
    minutes: 60,
    maxGuests: 6,
  },
  {
    name: 'Mini Golf',
    description: 'Eighteen glow-in-the-dark holes.',
    pricing: 'per_head',
    adult: 2000,
    junior: 1500,
    minutes: 45,
    maxGuests: 6,
  },
  {
    name: 'Axe Throwing',
    description: 'Coached axe throwing for adults.',
    pricing: 'per_head',
    adult: 5500,
    junior: null,
    minutes: 60,
    maxGuests: 10,
  },
  {
    name: 'VR Arena',
    description: 'Free-roam virtual reality for up to six players.',
    pricing: 'per_head',
    adult: 3900,
    junior: 3200,
    minutes: 40,
    maxGuests: 6,
  },
  {
    name: 'Billiards Table',
    description: 'A pool table by the hour.',
    pricing: 'flat_rate',
    flat: 4000,
    minutes: 60,
    maxGuests: 6,
  },
  {
    name: 'Arcade Game Card',
    description: 'A loaded card for the arcade floor.',
    pricing: 'flat_rate',
    flat: 2500,
    minutes: 90,
    maxGuests: 4,
  },
];

export interface PackageIdea extends ActivityIdea {
  base: number | null;
  deposit: { type: 'fixed' | 'percent'; value: number } | null;
  seasonal?: boolean;
}

export const PACKAGE_IDEAS: PackageIdea[] = [
  {
    name: "Kids' Birthday Party",
    description: 'Two activities, a party host, pizza and a cake table.',
    pricing: 'per_head',
    adult: 1500,
    junior: 3500,
    base: 5000,
    minutes: 120,
    maxGuests: 30,
    deposit: { type: 'fixed', value: 10000 },
  },
  {
    name: 'Corporate Team Building',
    description: 'Exclusive use of two activities with canapés and drinks.',
    pricing: 'flat_rate',
    flat: 150000,
    base: null,
    minutes: 180,
    maxGuests: 60,
    deposit: { type: 'percent', value: 25 },
  },
  {
    name: 'Date Night',
    description: 'Bowling, two cocktails and a shared dessert.',
    pricing: 'flat_rate',
    flat: 12000,
    base: null,
    minutes: 90,
    maxGuests: 2,
    deposit: null,
  },
  {
    name: 'Bowl & Burger',
    description: 'A game of bowling and a burger with fries.',
    pricing: 'per_head',
    adult: 3900,
    junior: 2900,
    base: null,
    minutes: 90,
    maxGuests: 16,
    deposit: null,
  },
  {
    name: 'Hens & Bucks Night',
    description: 'Karaoke, axe throwing and a drinks package.',
    pricing: 'per_head',
    adult: 6900,
    junior: null,
    base: 2000,
    minutes: 180,
    maxGuests: 25,
    deposit: { type: 'percent', value: 20 },
  },
  {
    name: 'School Holiday Pass',
    description: 'Unlimited play on weekdays in the school holidays.',
    pricing: 'per_head',
    adult: 2900,
    junior: 2900,
    base: null,
    minutes: 240,
    maxGuests: 8,
    deposit: null,
    seasonal: true,
  },
];

export interface EventIdea {
  name: string;
  description: string;
  price: number;
  /** 'single' = one date; 'series' = repeating every `everyDays`; 'several' = a handful. */
  mode: 'single' | 'series' | 'several';
  everyDays: number;
  minuteOfDay: number;
  minutes: number;
  maxTickets: number;
  minAge: number | null;
}

export const EVENT_IDEAS: EventIdea[] = [
  {
    name: 'Trivia Night',
    description: 'Teams of up to six; prizes for the top three.',
    price: 1500,
    mode: 'series',
    everyDays: 14,
    minuteOfDay: 19 * 60,
    minutes: 150,
    maxTickets: 120,
    minAge: 18,
  },
  {
    name: 'Comedy Club',
    description: 'Three stand-up comedians and a headliner.',
    price: 3500,
    mode: 'series',
    everyDays: 28,
    minuteOfDay: 20 * 60,
    minutes: 120,
    maxTickets: 150,
    minAge: 18,
  },
  {
    name: "New Year's Eve Party",
    description: 'DJ, unlimited games and a countdown.',
    price: 9900,
    mode: 'single',
    everyDays: 0,
    minuteOfDay: 20 * 60 + 30,
    minutes: 270,
    maxTickets: 400,
    minAge: 18,
  },
  {
    name: 'Retro Gaming Tournament',
    description: 'A bracket on classic consoles.',
    price: 2500,
    mode: 'several',
    everyDays: 60,
    minuteOfDay: 13 * 60,
    minutes: 300,
    maxTickets: 64,
    minAge: null,
  },
  {
    name: 'Live Music Friday',
    description: 'Local bands from 8pm.',
    price: 2000,
    mode: 'series',
    everyDays: 21,
    minuteOfDay: 20 * 60,
    minutes: 180,
    maxTickets: 200,
    minAge: 18,
  },
  {
    name: 'Glow Bowl Family Day',
    description: 'Cosmic bowling with a kids menu.',
    price: 1800,
    mode: 'several',
    everyDays: 45,
    minuteOfDay: 11 * 60,
    minutes: 180,
    maxTickets: 80,
    minAge: null,
  },
];

export const BRANDS = [
  'Neon Lanes',
  'Kingpin Social',
  'Arcade Republic',
  'Lucky Strike Club',
  'Moonshot Games',
  'Playhouse',
];

export const TAG_NAMES = [
  'VIP',
  'Regular',
  'Corporate',
  'Birthday',
  'Complaint',
  'Influencer',
  'Staff',
  'School',
  'Local',
  'Tourist',
];

export const LIST_IDEAS: Array<{ name: string; description: string; kind: string }> = [
  { name: 'Newsletter', description: 'Monthly news and offers.', kind: 'manual' },
  { name: 'Birthday Club', description: 'A free game in their birthday month.', kind: 'manual' },
  { name: 'Corporate Events', description: 'Planners of team events and functions.', kind: 'manual' },
  { name: 'Lapsed Customers', description: 'No visit in the last six months.', kind: 'rule' },
  { name: 'Recent Bookers', description: 'Booked in the last 30 days.', kind: 'rule' },
];

/** Things sold over the counter and as booking extras: [name, category, cents]. */
export const COUNTER_ITEMS: Array<[string, string, number]> = [
  ['Large Pizza', 'food', 2400],
  ['Fries', 'food', 800],
  ['Hot Chips & Gravy', 'food', 900],
  ['Soft Drink Jug', 'drinks', 1200],
  ['Craft Beer', 'drinks', 1100],
  ['House Cocktail', 'drinks', 1800],
  ['Arcade Tokens x20', 'arcade', 1000],
  ['Bowling Socks', 'merchandise', 500],
  ['Party Bags', 'party', 700],
];

export const STATUS_NAMES: Record<string, string[]> = {
  active: ['Confirmed', 'Deposit paid', 'Paid in full'],
  completed: ['Completed', 'Checked out'],
  cancelled: ['Cancelled', 'Cancelled by customer'],
  hold: ['Held', 'Awaiting payment'],
  expired: ['Expired', 'Hold lapsed'],
};

export const MEMBER_TIERS = ['Bronze', 'Silver', 'Gold', 'Platinum'];
export const HOW_HEARD = ['Google', 'Instagram', 'Facebook', 'A friend', 'Walked past', 'TikTok', 'Radio'];
export const CARD_BRANDS = ['visa', 'mastercard', 'amex'];
// RFC 2606 names: seeded and demo data can never email a real person.
export const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'];
