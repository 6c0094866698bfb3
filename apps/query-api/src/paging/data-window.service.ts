import { Inject, Injectable } from '@nestjs/common';
import { AD_STORE, type AdStore, type CatalogData } from '../store/ad-store.port';
import { ServiceError } from '@adintel/contracts';
import { addDays, dayNumber } from '../store/text';

const CACHE_MS = 5_000;

/** Longest window a trend or an activity report may cover. */
const MAX_WINDOW_DAYS = 731;

/**
 * "Today" for default windows is the latest last_seen_date in the data, not the wall clock, so demo
 * data never goes stale. It also versions cursors: reloaded data invalidates old cursors.
 */
@Injectable()
export class DataWindowService {
  /** The last catalog read, and the count of live batches it saw (see invalidate). */
  private cached: { at: number; data: CatalogData; batches: number } | null = null;
  /** The read under way: callers meanwhile share it, or keep the last one (below). */
  private reading: Promise<CatalogData> | null = null;
  private batches = 0;
  private liveThroughMs: number | null = null;

  constructor(@Inject(AD_STORE) private readonly store: AdStore) {}

  /**
   * The data window. Once there is one, a stale one (older than CACHE_MS, or from before a live batch) is answered
   * while the next is read, one read at a time: batches land twice a second, and every query waiting for a catalog
   * read after each (at 1M ads, every search arriving meanwhile started its own) would put that read on their path.
   */
  async catalog(): Promise<CatalogData> {
    const cached = this.cached;
    if (cached && cached.batches === this.batches && Date.now() - cached.at <= CACHE_MS) return cached.data;
    const reading = (this.reading ??= this.read());
    if (!cached) return reading;
    reading.catch(() => undefined); // a failed read is tried again by the next call; this one keeps the last
    return cached.data;
  }

  private read(): Promise<CatalogData> {
    const at = Date.now();
    const batches = this.batches;
    return this.store
      .catalog()
      .then((data) => {
        this.cached = { at, data, batches };
        return data;
      })
      .finally(() => {
        this.reading = null;
      });
  }

  /** The store changed (a live batch was applied): the next call reads the data window again. */
  invalidate(): void {
    this.batches++;
  }

  /** Every live sighting up to this XADD time (ms) has been applied (see src/live). */
  noteApplied(entryTimeMs: number): void {
    if (this.liveThroughMs === null || entryTimeMs > this.liveThroughMs) this.liveThroughMs = entryTimeMs;
  }

  /** ISO time of the newest live sighting applied, as its producer added it; null when none since start. */
  liveUpdatedAt(): string | null {
    return this.liveThroughMs === null ? null : new Date(this.liveThroughMs).toISOString();
  }

  async today(): Promise<string> {
    return (await this.catalog()).lastSeenDate ?? new Date().toISOString().slice(0, 10);
  }

  async version(): Promise<string> {
    const c = await this.catalog();
    return `${c.firstSeenDate ?? ''}..${c.lastSeenDate ?? ''}`;
  }

  /** The requested window, or the 30 days ending "today" (or ending date_to). */
  async window(dateFrom?: string, dateTo?: string): Promise<{ from: string; to: string }> {
    const to = dateTo ?? (dateFrom ? maxDate(await this.today(), dateFrom) : await this.today());
    const from = dateFrom ?? addDays(to, -29);
    if (dayNumber(to) - dayNumber(from) + 1 > MAX_WINDOW_DAYS) {
      throw ServiceError.invalidArgument([
        { field: 'date_from', message: `the window may span at most ${MAX_WINDOW_DAYS} days (answers list one row per day)` },
      ]);
    }
    return { from, to };
  }
}

const maxDate = (a: string, b: string) => (a > b ? a : b);
