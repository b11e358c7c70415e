import { describe, expect, it } from 'vitest';
import { instantField, SourceState, stampedLog } from '../../src/agent/log.js';

describe("the agent's log", () => {
  it('an instant in RFC 3339 to the millisecond, its exact µs beside it', () => {
    const us = 1_796_112_000_123_456n;
    expect(instantField('start', us)).toEqual({
      start: new Date(Number(us / 1000n)).toISOString(),
      start_us: '1796112000123456',
    });
    expect(instantField('start', us).start).toBe('2026-12-01T08:00:00.123Z');
  });

  it('each line stamped with the time, and the level info unless it says one', () => {
    const lines: Record<string, unknown>[] = [];
    const log = stampedLog((l) => lines.push(l));
    const before = Date.now();
    log({ msg: 'a' });
    log({ level: 'warn', msg: 'b', n: 1 });
    const after = Date.now();
    expect(lines.map(({ time: _, ...rest }) => rest)).toEqual([
      { level: 'info', msg: 'a' },
      { level: 'warn', msg: 'b', n: 1 },
    ]);
    for (const l of lines) {
      const t = Date.parse(String(l.time));
      expect(t >= before && t <= after, String(l.time)).toBe(true);
      expect(l.time).toBe(new Date(t).toISOString());
    }
  });

  it("a source's failures said once, until it reads again", () => {
    const lines: Record<string, unknown>[] = [];
    const state = new SourceState((l) => lines.push(l), 'traffic', 'nginx /var/log/a.log');
    state.read();
    state.failed('lost');
    state.failed('lost again');
    state.read();
    state.read();
    state.failed('gone');
    expect(lines).toEqual([
      {
        level: 'error',
        msg: 'traffic source unreadable; its periods are signed unmetered',
        source: 'nginx /var/log/a.log',
        error: 'lost',
      },
      { msg: 'traffic source readable again', source: 'nginx /var/log/a.log' },
      {
        level: 'error',
        msg: 'traffic source unreadable; its periods are signed unmetered',
        source: 'nginx /var/log/a.log',
        error: 'gone',
      },
    ]);
  });
});
