import { readFileSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';

/**
 * The page number of every frame in a SQLite database's write-ahead log (`<file>-wal`), in the order written, and the
 * page size: what a commit wrote, for the tests and benchmarks that count pages. The log's header is 32 bytes; each
 * frame is a 24-byte header (its page number first) and the page.
 */
export function walFramePages(file: string): { pageSize: number; pages: number[] } {
  const wal = readFileSync(`${file}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const pages: number[] = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) pages.push(wal.readUInt32BE(at));
  return { pageSize, pages };
}

/** The table or index each page of the database belongs to (SQLite's dbstat), by page number. */
export function pageOwners(db: DatabaseSync): Map<number, string> {
  return new Map((db.prepare('SELECT pageno, name FROM dbstat').all() as { pageno: number; name: string }[]).map((r) => [r.pageno, r.name]));
}
