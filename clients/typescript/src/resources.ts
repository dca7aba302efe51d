import { PageCall, type Page } from './paging.ts';
import { request, type Query, type TransportOptions } from './transport.ts';
import type {
  ApiKey,
  Customer,
  CustomerCreateParams,
  CustomerDeletion,
  CustomerListParams,
  CustomerUpdateParams,
  DeletedCustomer,
  TestDataRemoval,
} from './types.ts';

/** What every call takes besides its arguments. */
export interface CallOptions {
  /** Cancels the call, its retries and waits included. */
  signal?: AbortSignal;
  /** This call's retries, in place of the client's `maxRetries` (0: none, the caller decides). */
  maxRetries?: number;
}

/** A POST's options: the Idempotency-Key to send (a UUID is made when omitted), kept across retries. */
export interface WriteOptions extends CallOptions {
  idempotencyKey?: string;
}

/** An update's options: `ifMatch` is the customer's `version` (quoted for you) or an ETag. */
export interface UpdateOptions extends CallOptions {
  ifMatch?: string | number;
}

const segment = (id: string) => encodeURIComponent(id);

/** GET /<collection> (paged, with its filters) and GET /<collection>/{id}. */
export class ReadResource<T, Q extends object> {
  constructor(
    protected readonly transport: TransportOptions,
    protected readonly path: string,
  ) {}

  /** Await for one page, or `for await` over it for every record of every page. */
  list(params?: Q, options: CallOptions = {}): PageCall<T> {
    const query = { ...(params ?? {}) } as Query;
    const first = query.starting_after;
    return new PageCall<T>((startingAfter) =>
      request<Page<T>>(this.transport, {
        method: 'GET',
        path: this.path,
        query: { ...query, starting_after: startingAfter ?? (first as string | undefined) },
        ...options,
      }),
    );
  }

  retrieve(id: string, options: CallOptions = {}): Promise<T> {
    return request<T>(this.transport, { method: 'GET', path: `${this.path}/${segment(id)}`, ...options });
  }
}

/** Customers: the read calls and every write of the API. */
export class CustomersResource extends ReadResource<Customer, CustomerListParams> {
  constructor(transport: TransportOptions) {
    super(transport, '/customers');
  }

  /** With `include_deleted: true` (and `updated_since`), the customers deleted since are listed too, in their place. */
  override list(
    params: CustomerListParams & { include_deleted: true },
    options?: CallOptions,
  ): PageCall<Customer | CustomerDeletion>;
  override list(params?: CustomerListParams, options?: CallOptions): PageCall<Customer>;
  override list(params?: CustomerListParams, options: CallOptions = {}): PageCall<Customer | CustomerDeletion> {
    return super.list(params, options);
  }

  create(body: CustomerCreateParams, options: WriteOptions = {}): Promise<Customer> {
    return request<Customer>(this.transport, { method: 'POST', path: this.path, body, ...options });
  }

  update(id: string, body: CustomerUpdateParams, options: UpdateOptions = {}): Promise<Customer> {
    return request<Customer>(this.transport, {
      method: 'PATCH',
      path: `${this.path}/${segment(id)}`,
      body,
      ...options,
    });
  }

  delete(id: string, options: CallOptions = {}): Promise<DeletedCustomer> {
    return request<DeletedCustomer>(this.transport, {
      method: 'DELETE',
      path: `${this.path}/${segment(id)}`,
      ...options,
    });
  }

  addTag(id: string, tagId: string, options: WriteOptions = {}): Promise<Customer> {
    const path = `${this.path}/${segment(id)}/tags`;
    return request<Customer>(this.transport, { method: 'POST', path, body: { tag: tagId }, ...options });
  }

  removeTag(id: string, tagId: string, options: CallOptions = {}): Promise<Customer> {
    const path = `${this.path}/${segment(id)}/tags/${segment(tagId)}`;
    return request<Customer>(this.transport, { method: 'DELETE', path, ...options });
  }

  addToList(id: string, listId: string, options: WriteOptions = {}): Promise<Customer> {
    const path = `${this.path}/${segment(id)}/lists`;
    return request<Customer>(this.transport, { method: 'POST', path, body: { list: listId }, ...options });
  }

  removeFromList(id: string, listId: string, options: CallOptions = {}): Promise<Customer> {
    const path = `${this.path}/${segment(id)}/lists/${segment(listId)}`;
    return request<Customer>(this.transport, { method: 'DELETE', path, ...options });
  }
}

/** GET /key: what the calling key may do. */
export class KeyResource {
  constructor(private readonly transport: TransportOptions) {}

  retrieve(options: CallOptions = {}): Promise<ApiKey> {
    return request<ApiKey>(this.transport, { method: 'GET', path: '/key', ...options });
  }
}

/** DELETE /test-data (test keys only). */
export class TestDataResource {
  constructor(private readonly transport: TransportOptions) {}

  delete(options: CallOptions = {}): Promise<TestDataRemoval> {
    return request<TestDataRemoval>(this.transport, { method: 'DELETE', path: '/test-data', ...options });
  }
}
