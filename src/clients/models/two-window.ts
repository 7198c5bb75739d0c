import type { ClientModelFactory } from '../types.js';

/** The two-window model: placeholder until it is written (it refuses to model anything). */
export const twoWindowModel: ClientModelFactory = () => ({
  decide: () => {
    throw new Error('the two-window model is not written yet');
  },
});
