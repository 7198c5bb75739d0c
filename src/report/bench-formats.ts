/** Output formats of `swc bench`; `--format` choices come from here. */
export const benchFormats = ['table', 'json', 'markdown', 'csv'] as const;
export type BenchFormat = (typeof benchFormats)[number];
