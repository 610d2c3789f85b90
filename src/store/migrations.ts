import type { Knex } from 'knex';
import type { Db } from './db.js';

interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

/** Migrations live in code so that the same list runs on SQLite and PostgreSQL from source, without a build step. */
const MIGRATIONS: Record<string, Migration> = {
  '001_initial': {
    async up(db) {
      await db.schema.createTable('workspaces', (t) => {
        t.string('id', 40).primary();
        t.string('name', 200).notNullable();
        t.string('plan', 20).notNullable();
        t.integer('per_minute').nullable();
        t.integer('per_day').nullable();
        t.string('created_at', 30).notNullable();
        t.string('deleted_at', 30).nullable();
      });
      await db.schema.createTable('api_keys', (t) => {
        t.string('id', 40).primary();
        t.string('workspace_id', 40).notNullable().references('id').inTable('workspaces');
        t.string('name', 200).notNullable();
        t.string('prefix', 20).notNullable();
        t.string('hash', 64).notNullable().unique();
        t.text('scopes').notNullable();
        t.string('created_at', 30).notNullable();
        t.string('revoked_at', 30).nullable();
        t.index(['workspace_id']);
      });
      await db.schema.createTable('extractions', (t) => {
        t.string('id', 40).primary();
        t.string('workspace_id', 40).notNullable().references('id').inTable('workspaces');
        t.string('status', 20).notNullable();
        t.string('file_name', 1024).notNullable();
        t.string('file_type', 40).notNullable();
        t.string('template_id', 80).nullable();
        t.string('source', 10).notNullable();
        t.integer('confidence').nullable();
        t.integer('credits_used').notNullable().defaultTo(0);
        t.integer('pages').notNullable().defaultTo(0);
        t.text('fields').notNullable();
        t.string('error_code', 40).nullable();
        t.text('error_message').nullable();
        t.string('created_at', 30).notNullable();
        t.string('completed_at', 30).nullable();
        t.string('request_id', 40).nullable();
        t.binary('upload').nullable();
        t.index(['workspace_id', 'id']);
        t.index(['status']);
      });
      await db.schema.createTable('templates', (t) => {
        t.string('id', 80).primary();
        t.string('workspace_id', 40).notNullable().references('id').inTable('workspaces');
        t.text('body').notNullable();
        t.integer('priority').notNullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.index(['workspace_id', 'id']);
      });
    },
    async down(db) {
      for (const table of ['templates', 'extractions', 'api_keys', 'workspaces']) await db.schema.dropTableIfExists(table);
    },
  },
  '002_instances': {
    async up(db) {
      // Several servers may share one database: each registers itself and beats a heartbeat, and an
      // extraction records which one is working on it, so a starting server fails only orphaned work.
      await db.schema.createTable('instances', (t) => {
        t.string('id', 40).primary();
        t.bigInteger('started_at').notNullable();
        t.bigInteger('heartbeat_at').notNullable();
        t.index(['heartbeat_at']);
      });
      await db.schema.alterTable('extractions', (t) => {
        t.string('owner_instance', 40).nullable();
      });
      if (db.client.config.client !== 'pg') return;
      // Ids are compared and ordered (pagination cursors); byte order makes PostgreSQL agree with SQLite
      // whatever the database's default collation.
      for (const table of ['workspaces', 'api_keys', 'extractions', 'templates']) {
        const length = table === 'templates' ? 80 : 40;
        await db.raw(`ALTER TABLE ?? ALTER COLUMN id TYPE varchar(${length}) COLLATE "C"`, [table]);
      }
      // rate-limiter-flexible's counter table, created here under the migration lock rather than by
      // each starting server (concurrent CREATE TABLE IF NOT EXISTS races in PostgreSQL).
      await db.raw(
        'CREATE TABLE rate_limit_counters (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)',
      );
    },
    async down(db) {
      await db.schema.dropTableIfExists('instances');
      await db.schema.alterTable('extractions', (t) => t.dropColumn('owner_instance'));
      if (db.client.config.client === 'pg') await db.schema.dropTableIfExists('rate_limit_counters');
    },
  },
  '003_documents': {
    async up(db) {
      // The text read from a document, kept apart so that reading and listing extractions does not
      // load it; only `?include=document` does.
      await db.schema.createTable('extraction_documents', (t) => {
        t.string('extraction_id', 40).primary().references('id').inTable('extractions');
        t.text('body').notNullable();
      });
      // Retention deletes by age.
      await db.schema.alterTable('extractions', (t) => t.index(['created_at']));
    },
    async down(db) {
      await db.schema.dropTableIfExists('extraction_documents');
      await db.schema.alterTable('extractions', (t) => t.dropIndex(['created_at']));
    },
  },
  '004_e_invoice': {
    async up(db) {
      // What was read from a PDF's invoice attachment (the API's `e_invoice`), as JSON.
      await db.schema.alterTable('extractions', (t) => {
        t.text('e_invoice').nullable();
      });
    },
    async down(db) {
      await db.schema.alterTable('extractions', (t) => t.dropColumn('e_invoice'));
    },
  },
  '005_idempotency_keys': {
    async up(db) {
      // One row per API key and Idempotency-Key: the request's fingerprint and, once answered, the answer.
      await db.schema.createTable('idempotency_keys', (t) => {
        t.string('api_key_id', 40).notNullable();
        t.string('key', 255).notNullable();
        t.string('fingerprint', 64).notNullable();
        t.string('state', 10).notNullable();
        t.text('response').nullable();
        t.bigInteger('created_at').notNullable();
        t.primary(['api_key_id', 'key']);
        t.index(['created_at']);
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists('idempotency_keys');
    },
  },
  '006_extraction_jobs': {
    async up(db) {
      // Asynchronous extractions waiting for a worker, with their file, when the queue is the database.
      await db.schema.createTable('extraction_jobs', (t) => {
        t.string('extraction_id', 40).primary();
        t.string('workspace_id', 40).notNullable();
        t.binary('file').notNullable();
        t.string('content_type', 40).notNullable();
        t.string('template_id', 80).nullable();
        t.string('languages', 40).nullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.string('claimed_by', 40).nullable();
        t.bigInteger('available_at').notNullable();
        t.bigInteger('created_at').notNullable();
        t.index(['available_at']);
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists('extraction_jobs');
    },
  },
  '007_webhooks': {
    async up(db) {
      await db.schema.createTable('webhooks', (t) => {
        t.string('id', 40).primary();
        t.string('workspace_id', 40).notNullable().references('id').inTable('workspaces');
        t.string('url', 2048).notNullable();
        t.text('events').notNullable();
        t.string('secret', 80).notNullable();
        t.string('created_at', 30).notNullable();
        t.string('deleted_at', 30).nullable();
        t.index(['workspace_id', 'id']);
      });
      // One row per event and webhook: the signed body, every attempt made, and when to try next.
      await db.schema.createTable('webhook_deliveries', (t) => {
        t.string('id', 40).primary();
        t.string('webhook_id', 40).notNullable().references('id').inTable('webhooks');
        t.string('event_id', 40).notNullable();
        t.string('event_type', 40).notNullable();
        t.text('payload').notNullable();
        t.string('state', 10).notNullable();
        t.text('attempts').notNullable();
        t.bigInteger('next_attempt_at').nullable();
        t.bigInteger('claimed_until').nullable();
        t.string('created_at', 30).notNullable();
        t.string('completed_at', 30).nullable();
        t.index(['webhook_id', 'id']);
        t.index(['state', 'next_attempt_at']);
      });
      if (db.client.config.client !== 'pg') return;
      for (const table of ['webhooks', 'webhook_deliveries']) await db.raw('ALTER TABLE ?? ALTER COLUMN id TYPE varchar(40) COLLATE "C"', [table]);
    },
    async down(db) {
      await db.schema.dropTableIfExists('webhook_deliveries');
      await db.schema.dropTableIfExists('webhooks');
    },
  },
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name],
};

export async function migrate(db: Db): Promise<void> {
  await db.migrate.latest({ migrationSource: source });
}
