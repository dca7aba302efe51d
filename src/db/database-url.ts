/**
 * What DATABASE_URL names, read without loading either driver: the config, the CLI and the
 * storage all ask.
 */

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** `./data/venue.sqlite`, `sqlite:PATH`, or `:memory:`. */
export function sqlitePath(url: string): string {
  return url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
}
