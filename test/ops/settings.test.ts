import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { runCliProcess } from '../helpers/server-process.ts';

/** The settings of running and deploying: each refused at start with a message naming it. */
describe('deployment settings', () => {
  it('SMTP_URL must be an smtp(s) address with a host', () => {
    expect(loadConfig({ SMTP_URL: 'smtp://user:pass@mail.example.com:587' }).smtpUrl).toBe(
      'smtp://user:pass@mail.example.com:587',
    );
    expect(loadConfig({ SMTP_URL: 'smtps://mail.example.com' }).smtpUrl).toBe('smtps://mail.example.com');
    for (const bad of ['not a url', 'http://mail.example.com', 'smtp://']) {
      expect(() => loadConfig({ SMTP_URL: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ SMTP_URL: bad })).toThrow(
        /SMTP_URL must be an smtp:\/\/ or smtps:\/\/ address with a host/,
      );
    }
  });

  it('WORKERS, MIGRATE and SHUTDOWN_DELAY_MS take only their values', () => {
    const defaults = loadConfig({});
    expect([defaults.workers, defaults.migrate, defaults.shutdownDelayMs]).toEqual([1, 'auto', 0]);
    expect(loadConfig({ WORKERS: '4', MIGRATE: 'off', SHUTDOWN_DELAY_MS: '5000' })).toMatchObject({
      workers: 4,
      migrate: 'off',
      shutdownDelayMs: 5000,
    });
    expect(() => loadConfig({ WORKERS: '0' })).toThrow(/WORKERS must be a whole number from 1 to 64/);
    expect(() => loadConfig({ WORKERS: 'two' })).toThrow(/WORKERS must be/);
    expect(() => loadConfig({ MIGRATE: 'always' })).toThrow(/MIGRATE must be auto or off, got "always"/);
    expect(() => loadConfig({ SHUTDOWN_DELAY_MS: '-1' })).toThrow(/SHUTDOWN_DELAY_MS must be/);
  });

  it('REDIS_COMMAND_TIMEOUT_MS is 500 ms unless set, within 10 ms to a minute', () => {
    expect(loadConfig({}).redisCommandTimeoutMs).toBe(500);
    expect(loadConfig({ REDIS_COMMAND_TIMEOUT_MS: '2000' }).redisCommandTimeoutMs).toBe(2000);
    for (const bad of ['0', '5', '60001', 'soon']) {
      expect(() => loadConfig({ REDIS_COMMAND_TIMEOUT_MS: bad })).toThrow(/REDIS_COMMAND_TIMEOUT_MS must be/);
    }
  });

  it('a bad SMTP_URL stops the server at start, saying which setting and why', async () => {
    const res = await runCliProcess(['serve', '--port', '0'], {
      DATABASE_URL: '/tmp/venue-bad-smtp-never-opened.sqlite',
      SMTP_URL: 'not a url',
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/SMTP_URL must be an smtp:\/\/ or smtps:\/\/ address with a host, got "not a url"/);
  });
});
