/** A command line's fixed words, split on spaces: `[...words('bench --window 60 --rate 10'), '--scripts', dir]`. */
export const words = (text: string): string[] => text.split(' ').filter(Boolean);
