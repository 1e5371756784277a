// The embedded stores the application specs run on, wired as libs/nest wires the embedded default: a fresh data dir
// with the SQLite event log and read model, and a projector applying the given projections. No mocks of our ports.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore, SqliteReadModel, type SqliteCollection } from '@vault/adapters';
import type { CommandContext } from '@vault/domain';
import { CommandRunner } from '@vault/application/commands/command-runner';
import type { EventStore } from '@vault/application/ports/event-store';
import { ProjectionSet } from '@vault/application/projections/apply-batch';
import type { Projection } from '@vault/application/projections/projection';
import { Projector, type ProjectorLogger, type ProjectionWaiter } from '@vault/application/projections/projector';

export interface LogLine {
  level: 'info' | 'error';
  message: string;
}

/** A projector logger that keeps what it was told, so a spec can assert what was (not) logged. */
export const recordingLogger = (): ProjectorLogger & { lines: LogLine[] } => {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (message) => void lines.push({ level: 'info', message }),
    error: (message) => void lines.push({ level: 'error', message }),
  };
};

/** A fresh, private temporary data dir and the way to remove it. */
export const tempDataDir = (name: string): { dir: string; remove(): void } => {
  const dir = mkdtempSync(join(tmpdir(), `vault-app-${name}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
};

export interface Embedded {
  dir: string;
  events: SqliteEventStore;
  model: SqliteReadModel;
  projector: Projector;
  logger: ReturnType<typeof recordingLogger>;
  /** A command runner over `events` (or a decorator of it) that waits for this projector, as the API's does. */
  runner(events?: EventStore, options?: { maxAttempts?: number; writeWaitMs?: number; waiter?: ProjectionWaiter }): CommandRunner;
  close(): Promise<void>;
}

/** Opens the embedded stores in a fresh data dir; the projector is started unless `start` is false. */
export async function openEmbedded(options: {
  name: string;
  collections: SqliteCollection[];
  projections: Projection<any>[];
  start?: boolean;
}): Promise<Embedded> {
  const { dir, remove } = tempDataDir(options.name);
  const events = SqliteEventStore.open(dir);
  const model = SqliteReadModel.open(dir, options.collections);
  const logger = recordingLogger();
  const projector = new Projector(events, model, new ProjectionSet(options.projections), logger);
  if (options.start !== false) await projector.start();
  return {
    dir,
    events,
    model,
    projector,
    logger,
    runner: (over = events, { maxAttempts = 5, writeWaitMs = 2000, waiter = projector } = {}) =>
      new CommandRunner(over, waiter, { maxAttempts, writeWaitMs }),
    close: async () => {
      await projector.stop();
      await model.close();
      await events.close();
      remove();
    },
  };
}

/** The context an operator's command runs with (the CLI's), at `now`. */
export const operatorContext = (correlationId: string, now = new Date(), tenantId: string | null = null): CommandContext => ({
  tenantId,
  actor: { type: 'operator', id: 'cli' },
  now,
  correlationId,
});
