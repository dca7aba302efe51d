/** One page of a list, as the API answers it. */
export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  /** Pass it as `starting_after` for the next page; present only while `has_more` is true. */
  next_cursor?: string;
}

/**
 * What `list()` returns: await it for one page, or iterate it with `for await` to walk
 * every record of every page after it, in order, one request per page. Nothing is sent
 * until it is awaited or iterated; awaiting it twice sends one request.
 */
export class PageCall<T> implements Promise<Page<T>>, AsyncIterable<T> {
  readonly [Symbol.toStringTag] = 'PageCall';
  private first: Promise<Page<T>> | null = null;

  constructor(private readonly fetchPage: (startingAfter: string | undefined) => Promise<Page<T>>) {}

  private firstPage(): Promise<Page<T>> {
    this.first ??= this.fetchPage(undefined);
    return this.first;
  }

  // biome-ignore lint/suspicious/noThenProperty: a PageCall is awaited like the page it fetches.
  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.firstPage().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<Page<T>> {
    return this.firstPage().finally(onfinally);
  }

  /** Every page, starting with the first (the cursor of one is the `starting_after` of the next). */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let page = await this.firstPage();
    yield page;
    while (page.has_more && page.next_cursor) {
      page = await this.fetchPage(page.next_cursor);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }
}
