import { App } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { pictureOf, thumbnailsOf, VIEW_READS_AT_ONCE } from '../../view-thumbnails';

export type ToolArguments = Record<string, unknown>;

export interface ViewHandlers<T> {
  /**
   * The tool's structuredContent, exactly as the gateway returned it to the agent, and the thumbnail URIs its
   * `_meta` names for the view (by creative id; view-thumbnails.ts), to read through `Pictures`.
   */
  render(data: T, args: ToolArguments, thumbnails: ReadonlyMap<string, string>): void;
}

/**
 * Connects a view to its host (MCP Apps, postMessage to the parent frame): the tool's arguments arrive first,
 * then its result. Everything a view shows comes from that result, from a tool it calls back through the host
 * (`callServerTool`), which runs with the agent's own token and is metered like any other call, or from a free
 * thumbnail it reads through the host (`Pictures`).
 */
export function startView<T>(name: string, handlers: ViewHandlers<T>): App {
  const app = new App({ name, version: '1.0.0' }, {}, { autoResize: true });
  let args: ToolArguments = {};
  app.ontoolinput = (params) => {
    args = (params.arguments ?? {}) as ToolArguments;
  };
  app.ontoolresult = (result) => {
    const data = resultData<T>(result as CallToolResult);
    if (data.ok) handlers.render(data.value, args, thumbnailsOf(result));
    else showError(data.message);
  };
  void app.connect().catch((error: unknown) => showError(`cannot reach the host: ${(error as Error).message}`));
  return app;
}

export type ResultData<T> = { ok: true; value: T } | { ok: false; message: string };

/** A failed call carries a problem (text content); a successful one its JSON as structuredContent. */
export function resultData<T>(result: CallToolResult): ResultData<T> {
  if (result.isError || !result.structuredContent) {
    const text = result.content?.find((part) => part.type === 'text');
    let message = 'the tool call failed';
    if (text && 'text' in text) {
      try {
        const problem = JSON.parse(text.text) as { title?: string; detail?: string };
        message = [problem.title, problem.detail].filter(Boolean).join(': ') || message;
      } catch {
        message = text.text;
      }
    }
    return { ok: false, message };
  }
  return { ok: true, value: result.structuredContent as T };
}

type Child = Node | string | number | null | undefined | false;

/** Builds DOM with text nodes only: nothing a result contains is ever parsed as HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
  return node;
}

/** Replaces what the view shows. */
export function show(...children: Child[]) {
  const nodes = children.filter((child): child is Node | string | number => child !== null && child !== undefined && child !== false);
  (document.getElementById('view') as HTMLElement).replaceChildren(...nodes.map((child) => (typeof child === 'number' ? String(child) : child)));
}

export function showError(message: string) {
  show(el('p', { class: 'error', role: 'alert' }, message));
}

const numberFormat = new Intl.NumberFormat('en-US');
export const formatNumber = (value: number) => numberFormat.format(value);
export const formatShare = (share: number) => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;

/** "+12 (+40%)" against the previous window; "new" when the previous window had nothing. */
export function formatChange(change: { delta: number; ratio: number | null }): { text: string; trend: 'up' | 'down' | 'flat' } {
  const trend = change.delta > 0 ? 'up' : change.delta < 0 ? 'down' : 'flat';
  const delta = `${change.delta > 0 ? '+' : ''}${formatNumber(change.delta)}`;
  if (change.ratio === null) return { text: `${delta} (new)`, trend };
  const percent = Math.round((change.ratio - 1) * 100);
  return { text: `${delta} (${percent > 0 ? '+' : ''}${percent}%)`, trend };
}

/** A creative's picture: `src` is a data: URL checked by pictureOf (the views' CSP allows nothing else). */
export function thumbnail(src: string | undefined, creativeId: string | undefined): HTMLElement | null {
  return src ? el('img', { class: 'thumb', src, alt: `creative ${creativeId ?? ''}`.trim(), decoding: 'async' }) : null;
}

/**
 * The views' pictures, read through the host (`resources/read` of a thumbnail URI, free) when the host can proxy
 * resource reads (`serverResources`); without that, or when a read fails, a card goes without its picture. At most
 * VIEW_READS_AT_ONCE reads are in flight; each URI is read once per view.
 */
export class Pictures {
  private readonly reads = new Map<string, Promise<string | undefined>>();
  /** What settled reads gave, so a redraw shows a picture already read at once. */
  private readonly settled = new Map<string, string | undefined>();
  private readonly waiting: (() => void)[] = [];
  private active = 0;
  private readonly observer =
    typeof IntersectionObserver === 'function'
      ? new IntersectionObserver((entries) => entries.forEach((entry) => entry.isIntersecting && this.visible(entry.target)), { rootMargin: '200px' })
      : undefined;
  private readonly onVisible = new WeakMap<Element, () => void>();

  constructor(private readonly app: App) {}

  /** Whether this host reads resources for views at all. */
  get available(): boolean {
    return Boolean(this.app.getHostCapabilities()?.serverResources);
  }

  /** The picture at a thumbnail URI as a data: URL, or undefined (no such capability, a failed read, a bad type). */
  read(uri: string): Promise<string | undefined> {
    if (!this.available) return Promise.resolve(undefined);
    let read = this.reads.get(uri);
    if (!read) {
      read = this.limited(() => this.app.readServerResource({ uri })).then(
        (result) => pictureOf(result, uri),
        () => undefined,
      );
      void read.then((src) => this.settled.set(uri, src));
      this.reads.set(uri, read);
    }
    return read;
  }

  /**
   * A creative's picture in a card, read only once its place scrolls near the view's viewport: an empty placeholder
   * until then, replaced by the picture, or removed when there is none. Null without a URI or the capability.
   */
  slot(uri: string | undefined, creativeId: string | undefined): HTMLElement | null {
    if (!uri || !this.available) return null;
    if (this.settled.has(uri)) return thumbnail(this.settled.get(uri), creativeId);
    const placeholder = el('div', { class: 'thumb pending', 'aria-hidden': 'true' });
    const fill = () => void this.read(uri).then((src) => placeholder.replaceWith(...(src ? [thumbnail(src, creativeId) as HTMLElement] : [])));
    if (!this.observer) fill();
    else {
      this.onVisible.set(placeholder, fill);
      this.observer.observe(placeholder);
    }
    return placeholder;
  }

  /** The first `count` of these creatives' pictures that read, in order, reading no more than it needs. */
  async first(thumbnails: ReadonlyMap<string, string>, count: number): Promise<[creativeId: string, src: string][]> {
    const candidates = [...thumbnails];
    const found: [string, string][] = [];
    for (let next = 0; next < candidates.length && found.length < count; ) {
      const batch = candidates.slice(next, next + count - found.length);
      next += batch.length;
      const srcs = await Promise.all(batch.map(([, uri]) => this.read(uri)));
      batch.forEach(([creativeId], i) => {
        const src = srcs[i];
        if (src && found.length < count) found.push([creativeId, src]);
      });
    }
    return found;
  }

  private visible(target: Element) {
    this.observer?.unobserve(target);
    this.onVisible.get(target)?.();
    this.onVisible.delete(target);
  }

  private async limited<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < VIEW_READS_AT_ONCE) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // hands the slot to the next read waiting, else frees it
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** Opens a URL through the host: a sandboxed view cannot navigate on its own. */
export function linkButton(app: App, label: string, url: string): HTMLElement {
  const link = el('a', { href: url, class: 'link', rel: 'noopener noreferrer', target: '_blank' }, label);
  link.addEventListener('click', (event) => {
    event.preventDefault();
    void app.openLink({ url });
  });
  return link;
}
