/** Output formats of `swc compare` besides `--json`; `--format` choices come from here. */
export const compareFormats = ['table', 'markdown', 'csv', 'github'] as const;
export type CompareFormat = (typeof compareFormats)[number];
