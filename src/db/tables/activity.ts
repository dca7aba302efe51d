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

/** One request that carried a valid key (025-request-log); bodies only where DECISIONS keeps them. */
export interface RequestLogTable {
  id: string;
  workspace_id: string;
  key_id: string;
  method: string;
  /** With its query string. */
  path: string;
  status: number;
  code: string | null;
  duration_ms: number;
  ip: string;
  user_agent: string | null;
  version: string | null;
  request_body: string | null;
  response_body: string | null;
  /** 1 when a body was cut at 16 KiB. */
  truncated: number;
  created_at: number;
}
