import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('runs an OCR worker on every CPU by default and takes OCR_WORKERS as given', () => {
    expect(loadConfig({}).ocrWorkers).toBe(os.availableParallelism());
    expect(loadConfig({ OCR_WORKERS: '3' }).ocrWorkers).toBe(3);
  });

  it('reads every OCR language by default, English first, and takes OCR_LANGUAGES as given', () => {
    expect(loadConfig({}).ocrLanguages).toEqual(['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl']);
    expect(loadConfig({ OCR_LANGUAGES: ' de, en ,de' }).ocrLanguages).toEqual(['de', 'en']);
    expect(() => loadConfig({ OCR_LANGUAGES: 'en,xx' })).toThrow('OCR_LANGUAGES must list languages of en, de, fr, es, it, nl, pt, pl, got "en,xx"');
  });

  it('refuses a bad value at start with a message naming the variable', () => {
    expect(() => loadConfig({ OCR_WORKERS: '0' })).toThrow('OCR_WORKERS must be between 1 and 64, got 0');
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow('PORT must be a whole number, got "eighty"');
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:secret@h/db' })).toThrow('DATABASE_URL must start with sqlite: or postgres://, got "mysql://***@h/db"');
  });

  it('keeps extractions unless RETENTION_DAYS is set, then for that many days', () => {
    expect(loadConfig({}).retentionDays).toBeNull();
    expect(loadConfig({ RETENTION_DAYS: '' }).retentionDays).toBeNull();
    expect(loadConfig({ RETENTION_DAYS: '30' }).retentionDays).toBe(30);
    expect(() => loadConfig({ RETENTION_DAYS: '0' })).toThrow('RETENTION_DAYS must be between 1 and 36500, got 0');
  });

  it('reads the queue and webhook settings, and refuses ROLE=api without a shared database', () => {
    const config = loadConfig({ OCR_WORKERS: '3', WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(config).toMatchObject({ queueConcurrency: 4, role: 'all', webhookAllowPrivate: true, webhookRetryWindowMs: 86_400_000 });
    expect(loadConfig({ ROLE: 'api', DATABASE_URL: 'postgres://h/db' }).role).toBe('api');
    expect(() => loadConfig({ ROLE: 'api' })).toThrow('ROLE=api needs DATABASE_URL on PostgreSQL');
    expect(() => loadConfig({ ROLE: 'worker' })).toThrow('ROLE must be all or api');
  });
});
