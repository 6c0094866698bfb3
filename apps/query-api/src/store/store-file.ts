import { existsSync, renameSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

/**
 * An offline load (seed, ingest) of the SQLite store, made atomic: it writes a new file beside the store
 * (`ads.sqlite.loading`) and renames it over the store only when the load has finished (rows, indexes, rollups).
 * Ctrl-C or SIGKILL at any moment leaves the store as it was (or none, on a first run), never a partial one; the
 * next load finds the leftover file, says so and removes it. A rename within one folder is atomic (POSIX).
 */
export class StoreLoad {
  readonly file: string;

  private constructor(readonly target: string) {
    this.file = `${target}.loading`;
  }

  /** Starts a load of `target`: clears a stopped load's leftovers (saying so) and returns where to write. */
  static begin(target: string, say: (line: string) => void): StoreLoad {
    const load = new StoreLoad(target);
    if (sqliteFiles(load.file).some(existsSync)) {
      const store = existsSync(target) ? `the store at ${target} is as it was` : 'there is no store yet: this load makes the first';
      say(`found ${load.file}, left by a seed or ingest that was stopped before it finished: removing it (${store})`);
      load.discard();
    }
    return load;
  }

  /** Starts the new file as a copy of the store (an ingest adds to what is there). */
  copyFromTarget(): void {
    const db = new DatabaseSync(this.target, { readOnly: true });
    try {
      db.prepare('VACUUM INTO ?').run(this.file);
    } finally {
      db.close();
    }
  }

  /**
   * Puts the finished file in the store's place (its writer closed). The old store's write-ahead log is emptied into
   * it first and removed, so it cannot be read as the new file's; then one rename switches.
   */
  commit(): void {
    flushLog(this.file);
    if (existsSync(this.target)) flushLog(this.target);
    for (const side of sqliteFiles(this.target).slice(1)) rmSync(side, { force: true });
    renameSync(this.file, this.target);
  }

  /** Removes the new file (a failed or stopped load). */
  discard(): void {
    for (const file of sqliteFiles(this.file)) rmSync(file, { force: true });
  }
}

/** What a store file holds: its ads, and whether a load ever finished it (a generation published by finish()). */
export function inspectStore(file: string): { ads: number; finished: boolean } | null {
  if (!existsSync(file)) return null;
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const has = (table: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
    const ads = has('ads') ? Number((db.prepare('SELECT count(*) AS n FROM ads').get() as { n: number }).n) : 0;
    const finished = has('meta') && db.prepare("SELECT 1 FROM meta WHERE key = 'generation' AND value <> ''").get() !== undefined;
    return { ads, finished };
  } finally {
    db.close();
  }
}

const sqliteFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`];

/** Copies a file's write-ahead log into it and empties the log, so the file alone holds every committed write. */
function flushLog(file: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
