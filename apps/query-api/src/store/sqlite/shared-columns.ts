import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { BroadcastChannel, type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import type { AppStore, CreativeFormat } from '@adintel/contracts';
import type { AdColumns } from './ad-columns';
import { type ColumnIndexes, ColumnarAds, CODED_DICTIONARIES, type DictionaryCodes } from './columnar-search';
import { type ColumnsState, LiveColumns, type LiveState, type Relabel } from './live-columns';
import { sharedAlloc } from './typed-alloc';

/**
 * The live writer's columns, shared with the query workers of the same process (ADR 0009).
 *
 * The writer brings the columns forward over each live batch once, in shared memory (`SharedArrayBuffer`), builds
 * every index over them, and publishes them on a `BroadcastChannel` named after the store file: a message carries
 * only handles to shared memory and counts. A reader takes the newest message before each read (synchronously,
 * `receiveMessageOnPort`) and answers from it: no copy, no index rebuilt, no label read again, no read transaction
 * held between reads. Dictionaries are append-only logs in shared memory (codes never change; a changed label is
 * appended again), so a reader decodes only the entries added since the last message it took.
 *
 * A query sees a batch whole: the writer prepares a publication inside the batch's transaction and posts it right
 * after the commit; a reader takes messages before its read transaction begins, so what it took is never newer than
 * what the transaction sees, and when the transaction sees a newer batch the reader waits (Atomics.wait, briefly)
 * for its publication. A reader with no publication for what it sees (no writer in this process, a writer that
 * stopped, a full rebuild) derives its own columns from the store as before (LiveColumns).
 */

/** Dictionaries published as append-only logs of (code, value). */
const LOGGED = [...CODED_DICTIONARIES, 'advertiserNames', 'webmasterNames', 'apps', 'creativeTitles', 'creativeFormats'] as const;
type Logged = (typeof LOGGED)[number];

/**
 * A reader's slot in the publisher's pins (decisions/0020): free, claimed by a reader between reads, or the oldest
 * version (sequence number) the reader's current read may use. The live writer writes a version's buffers again only
 * once every pin is past it (MovingBuffers).
 */
const FREE = -1;
const IDLE = 0x7fffffff;
const PIN_SLOTS = 64;

/** How long a reader waits for the publication of a batch its transaction sees before it derives the columns itself. */
const PUBLICATION_WAIT_MS = 2_000;

export const columnsChannel = (file: string) => `adintel:columns:${resolve(file)}`;

/** An append-only log of (key, string) in shared memory, as a reader sees it up to `count`. */
interface LogView {
  bytes: Uint8Array;
  /** Entry i's bytes are bytes[offsets[i]..offsets[i + 1]). */
  offsets: Int32Array;
  keys: Int32Array;
  count: number;
}

/** What the writer posts for one live batch. Typed arrays here are views of shared memory: posting them copies nothing. */
export interface Publication {
  /** One writer's run of versions: logs continue from one publication to the next of the same lineage. */
  lineage: string;
  /** meta.columns_base and meta.seq the columns are current to. */
  base: string;
  seq: number;
  /** The columns' layout (ColumnsState.layout): kept by a tail forward, new after a load or a merge. */
  layout: string;
  /** [0]: the newest sequence number published, for readers waiting for one (Atomics.wait). */
  control: Int32Array;
  /**
   * The readers' pins (FREE, IDLE, or the oldest version a read in progress may use): one writer's, like `control`, and
   * named by `publisher` (each message brings its own view of the same shared memory: views are not compared).
   */
  pins: Int32Array;
  publisher: string;
  cols: Omit<AdColumns, 'dicts'>;
  indexes: ColumnIndexes;
  logs: Record<Logged, LogView>;
  hosts: LogView;
  words: LogView;
  wordBits: Uint32Array;
  /** Words of 32 bits from one word's bitset to the next's, and a bitset's length (n / 32, rounded up). */
  wordStride: number;
  wordLength: number;
}

/** Writer side of a log: grows by doubling into new shared buffers (readers of older views keep theirs). */
class StringLog {
  private bytes = sharedAlloc(Uint8Array, 1 << 12);
  private text = Buffer.from(this.bytes.buffer);
  private offsets = sharedAlloc(Int32Array, 257);
  private keys = sharedAlloc(Int32Array, 256);
  private used = 0;
  count = 0;

  append(key: number, value: string): void {
    const length = Buffer.byteLength(value);
    if (this.used + length > this.bytes.length) {
      const bytes = sharedAlloc(Uint8Array, Math.max(2 * this.bytes.length, this.used + length));
      bytes.set(this.bytes.subarray(0, this.used));
      this.bytes = bytes;
      this.text = Buffer.from(bytes.buffer);
    }
    if (this.count === this.keys.length) {
      const keys = sharedAlloc(Int32Array, 2 * this.keys.length);
      keys.set(this.keys);
      const offsets = sharedAlloc(Int32Array, keys.length + 1);
      offsets.set(this.offsets);
      this.keys = keys;
      this.offsets = offsets;
    }
    this.text.write(value, this.used, 'utf8');
    this.keys[this.count] = key;
    this.used += length;
    this.count++;
    this.offsets[this.count] = this.used;
  }

  view(): LogView {
    return { bytes: this.bytes, offsets: this.offsets, keys: this.keys, count: this.count };
  }
}

/** Reader side of a log: entry i's value, decoded on demand. */
class LogReader {
  private readonly text: Buffer;

  constructor(private readonly view: LogView) {
    this.text = Buffer.from(view.bytes.buffer, view.bytes.byteOffset, view.bytes.byteLength);
  }

  get length(): number {
    return this.view.count;
  }

  at(i: number): string | undefined {
    if (i < 0 || i >= this.view.count) return undefined;
    return this.text.toString('utf8', this.view.offsets[i], this.view.offsets[i + 1]);
  }

  key(i: number): number {
    return this.view.keys[i] ?? -1;
  }
}

/** The live writer's side: turns its columns after a batch into a publication, and posts it. */
export class ColumnsPublisher {
  private readonly channel: BroadcastChannel;
  private readonly control = sharedAlloc(Int32Array, 1);
  private readonly pins = sharedAlloc(Int32Array, PIN_SLOTS).fill(FREE);
  private readonly id = randomUUID();
  private lineage = '';
  /** The codes of the lineage logged so far (a new load of the columns starts another lineage). */
  private codes: DictionaryCodes | null = null;
  private logs = {} as Record<Logged, StringLog>;
  /** Per dictionary, the codes logged so far (a relabel appends a code again: the log's count is not this). */
  private logged = {} as Record<Logged, number>;
  private words = new StringLog();
  /** The hosts by code (append-only, like the dictionaries: ADR 0018), logged so far. */
  private hosts = new StringLog();

  constructor(file: string) {
    this.channel = new BroadcastChannel(columnsChannel(file));
    this.channel.unref();
  }

  /** Builds what readers need of these columns (every index, the logs' new entries): inside the batch's transaction. */
  prepare(state: LiveState & { base: string; seq: number }, relabels: Relabel[]): Publication {
    const { cols } = state.columnar;
    const { dicts, ...arrays } = cols;
    if (state.columnar.codes !== this.codes) {
      this.codes = state.columnar.codes;
      this.lineage = randomUUID();
      this.logs = Object.fromEntries(LOGGED.map((name) => [name, new StringLog()])) as Record<Logged, StringLog>;
      this.logged = Object.fromEntries(LOGGED.map((name) => [name, 0])) as Record<Logged, number>;
      this.words = new StringLog();
      this.hosts = new StringLog();
      [...state.wordBits.keys()].forEach((word, i) => this.words.append(i, word));
      relabels = [];
    }
    const encode = (name: Logged, code: number) => {
      const value = dicts[name][code];
      return typeof value === 'string' ? value : JSON.stringify(value ?? null);
    };
    for (const name of LOGGED) {
      // Dictionaries only grow: the codes from the last one logged on are the new ones.
      for (let code = this.logged[name]; code < dicts[name].length; code++) this.logs[name].append(code, encode(name, code));
      this.logged[name] = dicts[name].length;
    }
    for (const { dict, code } of relabels) this.logs[dict].append(code, encode(dict, code));
    // Hosts only grow, by code: the entries from the last one logged on are the new ones (a reader finds the i-th at i).
    for (let code = this.hosts.count; code < (cols.hostOrder?.length ?? 0); code++) this.hosts.append(code, dicts.hostsReversed.at(code) ?? '');
    const [first] = state.wordBits.values();
    return {
      lineage: this.lineage,
      base: state.base,
      seq: state.seq,
      layout: state.layout,
      control: this.control,
      pins: this.pins,
      publisher: this.id,
      cols: arrays,
      indexes: state.columnar.allIndexes(),
      logs: Object.fromEntries(LOGGED.map((name) => [name, this.logs[name].view()])) as Record<Logged, LogView>,
      hosts: this.hosts.view(),
      words: this.words.view(),
      wordBits: first ? new Uint32Array(first.buffer) : new Uint32Array(new SharedArrayBuffer(0)),
      wordStride: state.wordStride,
      wordLength: (cols.n + 31) >>> 5,
    };
  }

  /** The oldest version a reader may be reading now (Infinity: none is reading a published one). */
  oldestRead(): number {
    let oldest = Infinity;
    for (let slot = 0; slot < PIN_SLOTS; slot++) {
      const pin = Atomics.load(this.pins, slot);
      if (pin >= 0 && pin < oldest) oldest = pin;
    }
    return oldest;
  }

  /** Posts a prepared publication: right after the batch's commit. */
  post(publication: Publication | null): void {
    if (!publication) return;
    this.channel.postMessage(publication);
    Atomics.store(this.control, 0, publication.seq);
    Atomics.notify(this.control, 0);
  }

  /** The next publication starts a new lineage (its logs from the start): after a batch was rolled back. */
  restart(): void {
    this.codes = null;
  }

  close(): void {
    this.channel.close();
  }
}

/** A reader's side: the newest publication, and the dictionaries decoded from the logs so far. */
class ColumnsFollower {
  private readonly channel: BroadcastChannel;
  private latest: Publication | null = null;
  private adopted: { publication: Publication; state: ColumnsState } | null = null;
  private lineage = '';
  private dicts = emptyDicts();
  private codes = emptyCodes();
  private counts = {} as Record<Logged, number>;
  private words = new Map<string, number>();
  /** This reader's slot in a writer's pins, and the writer the read in progress is pinned with (null: none). */
  private pin: { publisher: string; pins: Int32Array; slot: number } | null = null;
  private pinned: string | null = null;

  constructor(file: string) {
    this.channel = new BroadcastChannel(columnsChannel(file));
    // Between reads the event loop keeps only the newest message (an idle reader holds no old columns alive).
    this.channel.onmessage = (event: unknown) => {
      this.latest = (event as { data: Publication }).data;
    };
    this.channel.unref();
  }

  /** Takes the messages posted so far: call before a read transaction begins. */
  drain(): void {
    for (let m = receive(this.channel); m; m = receive(this.channel)) this.latest = m.message as Publication;
  }

  /**
   * Before a read transaction begins (after drain): pins the newest version published, the oldest this read can see
   * (a version is published after its commit). A read that is not pinned takes no publication: the writer may be
   * writing the buffers of any version no pin holds.
   */
  pinRead(): void {
    const latest = this.latest;
    if (!latest) return;
    if (this.pin?.publisher !== latest.publisher) {
      this.releaseSlot();
      const slot = claimSlot(latest.pins);
      this.pin = slot < 0 ? null : { publisher: latest.publisher, pins: latest.pins, slot };
    }
    if (!this.pin) return;
    Atomics.store(this.pin.pins, this.pin.slot, Atomics.load(latest.control, 0));
    this.pinned = this.pin.publisher;
  }

  /** After the read: the writer may write the buffers of the versions it used again. */
  unpinRead(): void {
    if (this.pin && this.pinned) Atomics.store(this.pin.pins, this.pin.slot, IDLE);
    this.pinned = null;
  }

  private releaseSlot(): void {
    if (this.pin) Atomics.store(this.pin.pins, this.pin.slot, FREE);
    this.pin = null;
  }

  /** The published columns for exactly this base and batch, or null (the caller derives its own). */
  stateFor(base: string, seq: number): ColumnsState | null {
    const pinned = this.pinned;
    if (!pinned) return null;
    const adopted = this.adopted?.publication;
    if (adopted?.base === base && adopted.seq === seq && adopted.publisher === pinned) return this.adopted?.state ?? null;
    const latest = this.latest;
    if (!latest || latest.base !== base || latest.seq > seq || latest.publisher !== pinned) return null;
    const publication = latest.seq === seq ? latest : this.await(latest.control, base, seq);
    if (!publication) return null;
    this.adopted = { publication, state: this.adopt(publication) };
    return this.adopted.state;
  }

  /** Waits for the writer to publish `seq` (it commits first, then posts); null when it does not come in time. */
  private await(control: Int32Array, base: string, seq: number): Publication | null {
    const deadline = performance.now() + PUBLICATION_WAIT_MS;
    for (;;) {
      const published = Atomics.load(control, 0);
      let found: Publication | null = null;
      for (let m = receive(this.channel); m; m = receive(this.channel)) {
        const publication = m.message as Publication;
        this.latest = publication;
        if (publication.base === base && publication.seq === seq) found = publication;
      }
      if (found) return found.publisher === this.pinned ? found : null;
      const left = deadline - performance.now();
      if (published >= seq || left <= 0) {
        // Another writer's batch, or a writer that stopped: follow again from its next publication.
        this.latest = null;
        return null;
      }
      Atomics.wait(control, 0, published, left);
    }
  }

  /** The publication's columns over the dictionaries, extended by the log entries since the last one taken. */
  private adopt(p: Publication): ColumnsState {
    if (p.lineage !== this.lineage) {
      this.lineage = p.lineage;
      this.dicts = emptyDicts();
      this.codes = emptyCodes();
      this.counts = {} as Record<Logged, number>;
      this.words = new Map();
      const words = new LogReader(p.words);
      for (let i = 0; i < words.length; i++) this.words.set(words.at(i) ?? '', i);
    }
    for (const name of LOGGED) {
      const log = new LogReader(p.logs[name]);
      const labels = this.dicts[name] as unknown[];
      const codes = name in this.codes ? this.codes[name as keyof DictionaryCodes] : null;
      for (let i = this.counts[name] ?? 0; i < log.length; i++) {
        const code = log.key(i);
        const value = log.at(i) ?? '';
        labels[code] = name === 'apps' ? JSON.parse(value) : value;
        codes?.set(value, code);
      }
      this.counts[name] = log.length;
    }
    const cols: AdColumns = { ...p.cols, dicts: { ...this.dicts, hostsReversed: new LogReader(p.hosts) } };
    const { wordBits, wordStride, wordLength, indexes } = p;
    const words = this.words;
    return {
      columnar: new ColumnarAds(cols, this.codes, { indexes }),
      layout: p.layout,
      wordBits: {
        get: (word) => {
          const i = words.get(word);
          return i === undefined ? undefined : wordBits.subarray(i * wordStride, i * wordStride + wordLength);
        },
      },
    };
  }

  close(): void {
    this.unpinRead();
    this.releaseSlot();
    this.channel.close();
  }
}

/** A free slot of the pins, claimed (IDLE); -1 when every slot is taken (the reader then takes no publication). */
function claimSlot(pins: Int32Array): number {
  for (let slot = 0; slot < pins.length; slot++) if (Atomics.compareExchange(pins, slot, FREE, IDLE) === FREE) return slot;
  return -1;
}

/** Node's receiveMessageOnPort takes a BroadcastChannel as well (its docs); @types/node names only MessagePort. */
const receive = (channel: BroadcastChannel) => receiveMessageOnPort(channel as unknown as MessagePort);

type Dicts = Omit<AdColumns['dicts'], 'hostsReversed'>;

const emptyDicts = (): Dicts => ({
  platforms: [],
  countries: [],
  categories: [],
  advertiserIds: [],
  webmasterIds: [],
  appIds: [],
  creativeIds: [],
  advertiserNames: [],
  webmasterNames: [],
  apps: [] as { name: string; store: AppStore; bundle_id: string }[],
  creativeTitles: [],
  creativeFormats: [] as CreativeFormat[],
});

const emptyCodes = (): DictionaryCodes => Object.fromEntries(CODED_DICTIONARIES.map((name) => [name, new Map<string, number>()])) as DictionaryCodes;

/**
 * A reader's columns: the live writer's publication when there is one for what the read transaction sees, else
 * derived from the store by the reader itself (LiveColumns). `follow: false` always derives (tests of that path).
 */
export class ReaderColumns {
  private readonly own: LiveColumns;
  private readonly follower: ColumnsFollower | null;
  private readonly meta: StatementSync;

  constructor(db: DatabaseSync, file: string, follow = true) {
    this.own = new LiveColumns(db);
    this.follower = follow ? new ColumnsFollower(file) : null;
    this.meta = db.prepare("SELECT key, value FROM meta WHERE key IN ('columns_base', 'seq')");
  }

  /** Times this reader derived the columns itself (loaded or brought forward) instead of taking a publication. */
  get derivations(): number {
    return this.own.derivations;
  }

  /** Before a read transaction begins. */
  beforeRead(): void {
    this.follower?.drain();
    this.follower?.pinRead();
  }

  /** After the read (its transaction ended): what it used of the writer's columns may be written again. */
  afterRead(): void {
    this.follower?.unpinRead();
  }

  /** The columns as of the batch the current read transaction sees. */
  current(): ColumnsState | null {
    if (this.follower) {
      const meta = new Map((this.meta.all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
      const base = meta.get('columns_base');
      const followed = base === undefined ? null : this.follower.stateFor(base, Number(meta.get('seq') ?? '0'));
      if (followed) {
        this.own.restore(null); // its own columns, if it had derived some, are not needed any more
        return followed;
      }
    }
    return this.own.current();
  }

  close(): void {
    this.follower?.close();
  }
}
