/** What the store throws besides a driver's own errors: damage found, a write not taken. */

/**
 * A row of the store that does not rebuild the digest it is kept under (its bytes were altered
 * inside the database, past what SQLite's `quick_check` sees): thrown by a read that finds one
 * and nothing sound in its place, so that damage is never answered as an absence.
 */
export class StoreDamagedError extends Error {
  override readonly name = 'StoreDamagedError';
  constructor(
    /** What the row holds. */
    readonly what: 'decision' | 'record' | 'policy',
    /** The digest asked for, in hex; or, from the listing, the row's key (its first 8 bytes). */
    readonly digest: string,
  ) {
    super(
      `the store keeps a damaged ${what} row for ${digest}: its bytes do not rebuild its digest`,
    );
  }
}

/**
 * A write the operator asked for (a reload's policy or key log head) that the store did not
 * take: the store failed, not the file (`POST /admin/reload` answers 503, not 409).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
