/**
 * The smallest ACL (rules after `ACL SETUSER <user> on >password`) with which
 * `lights`, `inspect` and `doctor` run: every key, the read
 * category, and the two commands outside it swc sends first (PING) and reads
 * the clock with (TIME). docs/operator.md and a test use the same rules.
 */
export const READ_ONLY_ACL = '~* +@read +ping +time';
