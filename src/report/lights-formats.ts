/** Output formats of `swc lights`; `--format` choices come from here. */
export const lightsFormats = ['table', 'json', 'csv', 'markdown'] as const;
export type LightsFormat = (typeof lightsFormats)[number];
