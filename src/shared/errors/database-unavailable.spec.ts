import { describe, expect, it } from '@jest/globals';
import { describeCause, isDatabaseUnavailable, UnavailableLog } from './database-unavailable.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const wrapped = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { name: 'DriverException', previous: refused });

describe(isDatabaseUnavailable.name, () => {
  it.each([
    ['a refused connection', refused, true],
    ['one wrapped by the ORM', wrapped, true],
    ['the pool timing out', new Error('timeout exceeded when trying to connect'), true],
    ['a server shutting down (57P01)', Object.assign(new Error('terminating connection'), { code: '57P01' }), true],
    ['a protocol violation (08P01, e.g. a NUL byte)', Object.assign(new Error('invalid message'), { code: '08P01' }), false],
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' }), false],
    ['not an error', 'ECONNREFUSED', false],
  ])('%s: %s', (_name, error, expected) => {
    expect(isDatabaseUnavailable(error)).toBe(expected);
  });
});

describe(describeCause.name, () => {
  it('names each wrapped error once, outermost first, with its code', () => {
    expect(describeCause(wrapped)).toBe('connect ECONNREFUSED 127.0.0.1:5432 [ECONNREFUSED]');
    const outer = Object.assign(new Error('query failed'), { cause: refused });
    expect(describeCause(outer)).toBe('query failed <- connect ECONNREFUSED 127.0.0.1:5432 [ECONNREFUSED]');
  });

  it('survives a cycle and values that are not errors', () => {
    const a: { message: string; cause?: unknown } = { message: 'a' };
    a.cause = a;
    expect(describeCause(a)).toBe('a');
    expect(describeCause('plain text')).toBe('plain text');
  });
});

describe(UnavailableLog.name, () => {
  it('logs the cause at most once an interval, with the number of 503s since the last line', () => {
    const lines: string[] = [];
    const log = new UnavailableLog({ warn: (line) => lines.push(line) }, 10_000);
    log.report(refused, 0);
    log.report(refused, 1);
    log.report(refused, 9_999);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe('answering 503 DATABASE_UNAVAILABLE to 1 call(s) since the last report; cause: connect ECONNREFUSED 127.0.0.1:5432 [ECONNREFUSED]');
    log.report(new Error('timeout exceeded when trying to connect'), 10_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('answering 503 DATABASE_UNAVAILABLE to 3 call(s) since the last report; cause: timeout exceeded when trying to connect');
  });
});
