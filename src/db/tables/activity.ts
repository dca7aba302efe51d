/**
 * What limits and the unusual-activity check count (DECISIONS "Rate limits", "Unusual activity").
 */

/** Requests of one live key in one clock hour (DECISIONS "Unusual activity"). */
export interface KeyActivityHourTable {
  key_id: string;
  hour_start: number;
  workspace_id: string;
  requests: number;
}

/** What one hourly check saw of one key (013-key-activity-checks). */
export interface KeyActivityCheckTable {
  key_id: string;
  hour_start: number;
  workspace_id: string;
  requests: number;
  request_threshold: number | null;
  customers_sent: number;
  customer_threshold: number | null;
  verdict: 'requests' | 'customers' | null;
}

/** When a customer was last sent to a live key. */
export interface KeyCustomerReadTable {
  key_id: string;
  customer_id: string;
  workspace_id: string;
  last_seen_at: number;
}

/** Daily counts of the in-process limit store (migration 003-limits). */
export interface LimitCounterTable {
  counter_id: string;
  window_start: number;
  count: number;
}
