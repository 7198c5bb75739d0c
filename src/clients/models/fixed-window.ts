import type { ClientModelFactory } from '../types.js';

/** The fixed-window model: placeholder until it is written (it refuses to model anything). */
export const fixedWindowModel: ClientModelFactory = () => ({
  decide: () => {
    throw new Error('the fixed-window model is not written yet');
  },
});
