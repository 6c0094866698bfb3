import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * What a reader derives from the stored data (decoded columns, planner statistics, the catalog), kept
 * until finish() publishes a new generation: every read checks the generation (one indexed row) and
 * reloads a value only when it changed.
 */
export class GenerationCache {
  private readonly current: StatementSync;
  private readonly values = new Map<string, { generation: string; value: unknown }>();

  constructor(db: DatabaseSync) {
    this.current = db.prepare("SELECT value FROM meta WHERE key = 'generation'");
  }

  /** The published generation; '' before the first finish(). */
  generation(): string {
    const row = this.current.get() as { value: string } | undefined;
    return row?.value ?? '';
  }

  /** The value under `key` for the current generation, loading it when the generation changed. */
  get<T>(key: string, load: () => T): T {
    const generation = this.generation();
    const cached = this.values.get(key);
    if (cached?.generation === generation) return cached.value as T;
    const value = load();
    this.values.set(key, { generation, value });
    return value;
  }
}
