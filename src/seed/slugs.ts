/** URL-ish names: `Kids' Birthday Party` -> `kids-birthday-party`, made unique within a table. */
function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export class SlugSet {
  private readonly used: Set<string>;
  constructor(existing: Iterable<string>) {
    this.used = new Set(existing);
  }
  /** The slug of `name`, with -2, -3… when an earlier record (or seed run) took it. */
  take(name: string): string {
    const base = slugify(name) || 'item';
    let slug = base;
    for (let n = 2; this.used.has(slug); n++) slug = `${base}-${n}`;
    this.used.add(slug);
    return slug;
  }
}
