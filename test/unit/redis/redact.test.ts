import { describe, expect, it } from 'vitest';
import { describeTarget, redactUrl, secretsOf } from '../../../src/redis/connect.js';

const SECRET = 'hunter2x';

describe('redactUrl masks every form of secret a URL can carry', () => {
  it.each([
    ['password in user-info', `redis://:${SECRET}@127.0.0.1:6379`, 'redis://:***@127.0.0.1:6379'],
    ['user and password', `redis://admin:${SECRET}@h:1/2`, 'redis://admin:***@h:1/2'],
    ['a lone user-info part (often the password)', `redis://${SECRET}@h`, 'redis://***@h'],
    ['an unencoded @ in the password', `redis://:${SECRET}@x@h:1/3`, 'redis://:***@h:1/3'],
    ['?password= in the query', `redis://h:1?password=${SECRET}&db=2`, 'redis://h:1?password=***&db=2'],
    ['?token= and ?auth= in the query', `redis://h?auth_token=${SECRET}&Token=${SECRET}`, 'redis://h?auth_token=***&Token=***'],
    ['a fragment', `redis://h#${SECRET}`, 'redis://h#***'],
    ['a URL without secrets', 'redis://127.0.0.1:6379/0', 'redis://127.0.0.1:6379/0'],
  ])('%s', (_, url, expected) => {
    expect(redactUrl(url)).toBe(expected);
    expect(redactUrl(new URL(url))).toBe(expected);
    expect(redactUrl(url)).not.toContain(SECRET);
  });

  it.each([
    ['no colon after the scheme', `redis//:${SECRET}@h`],
    ['a slash in the password', `redis://:ab/${SECRET}@h`],
    ['a slash in user:password', `redis://user:pa/${SECRET}@host`],
    ['a space in the password', `redis://:a ${SECRET}@h`],
    ['a bad port with a password', `redis://:${SECRET}@127.0.0.1:99999`],
    ['query-style text', `host password=${SECRET}&pwd=${SECRET} db=1`],
    ['a bare word that is not a URL at all', `${SECRET}@`],
  ])('odd or unparseable (%s): masked conservatively, never echoed raw', (_, text) => {
    const shown = redactUrl(text);
    expect(shown).not.toContain(SECRET);
    expect(shown).toContain('***');
    for (const secret of secretsOf(text)) expect(shown).not.toContain(secret);
    expect(secretsOf(text).some((s) => s.includes(SECRET))).toBe(true);
  });

  it('describeTarget names host, port and database without credentials', () => {
    expect(describeTarget(`redis://:${SECRET}@10.0.0.5:6380/4`)).toBe('10.0.0.5:6380 db 4');
    expect(describeTarget('redis://cache.internal')).toBe('cache.internal:6379 db 0');
    expect(describeTarget(`rediss://u:${SECRET}@[::1]:7000`)).toBe('[::1]:7000 db 0');
    expect(describeTarget(`redis//:${SECRET}@h`)).not.toContain(SECRET);
  });
});

describe('scrub: the last guard on every error line the CLI prints', () => {
  it('redacts URL-like words and keeps the sentence around them', async () => {
    const { scrub } = await import('../../../src/commands/lifecycle.js');
    expect(scrub(`swc: cannot use Redis at redis://:${SECRET}@127.0.0.1:1: connection refused`)).toBe(
      'swc: cannot use Redis at redis://:***@127.0.0.1:1: connection refused',
    );
    expect(scrub('swc: cannot use Redis at redis://:***@127.0.0.1:1: refused')).toBe('swc: cannot use Redis at redis://:***@127.0.0.1:1: refused');
    expect(scrub('use rediss://… or redis:// instead')).toBe('use rediss://… or redis:// instead');
    expect(scrub(`see redis://h:1/0?password=${SECRET}, then retry`)).toBe('see redis://h:1/0?password=***, then retry');
  });

  it('masks a registered secret wherever it appears, also outside any URL', async () => {
    const { registerUrlSecrets, scrub } = await import('../../../src/commands/lifecycle.js');
    registerUrlSecrets(`redis//:${SECRET}@h`);
    expect(scrub(`a library said: bad token ${SECRET} near "${SECRET}"`)).toBe('a library said: bad token *** near "***"');
  });
});
