/** The defaults of `--instruction-calls` and `--instruction-repeats`. */

/**
 * Operations per repeat and repeats per op. Measured on a loaded 2-core
 * machine (load 3–8), Redis 7.0.15: 300 operations per repeat keep every
 * layout's spread under 0.5%, and the three repeats of all three ops of the
 * two default layouts take about 10 s under valgrind, after its 3 s start.
 */
export const DEFAULT_INSTRUCTION_CALLS = 300;
export const DEFAULT_INSTRUCTION_REPEATS = 3;
