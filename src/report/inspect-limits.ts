/**
 * Most rows a bucket or seconds table lists, whatever the limit asked (the
 * CLI's --limit stops here too): cli-table3 spreads its rows into a call,
 * and a million rows overflow the stack. JSON has every bucket.
 */
export const MAX_LISTED_ROWS = 10_000;

/** Most metadata fields the human formats list (a real light has a handful); the rest are counted. JSON has every field. */
export const MAX_METADATA_FIELDS = 200;
