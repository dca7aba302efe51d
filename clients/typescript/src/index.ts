export { VenueClient, type VenueClientOptions } from './client.ts';
export { VenueApiError, VenueConnectionError, type FieldError, type ProblemDocument } from './errors.ts';
export { PageCall, type Page } from './paging.ts';
export type { CallOptions, UpdateOptions, WriteOptions } from './resources.ts';
export { quoteIfMatch, type ApiResponse, type Query, type RequestOptions } from './transport.ts';
export { SERVICE_VERSION } from './generated/version.ts';
export type * from './types.ts';
export type { components, operations, paths } from './generated/openapi.ts';
export {
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from './webhooks.ts';
export type * from './webhook-events.ts';
