// Moved to test/helpers.ts. This re-export keeps test files written on branches
// in flight compiling; remove it once they are merged.
export { digest, keysMatching } from '../helpers.js';
