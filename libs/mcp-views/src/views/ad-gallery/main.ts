import type { AdRow, AdsPage } from '@adintel/contracts';
import { thumbnailsOf } from '../../view-thumbnails';
import { el, formatNumber, linkButton, Pictures, resultData, show, startView, type ToolArguments } from '../shared/view-app';

/**
 * search_ads as a gallery of ad cards, each with its creative's picture when the result's `_meta` names one (read
 * through the host as the card comes into view); "Load more" asks the host for the next page with the same
 * arguments (its pictures come the same way).
 */
const state: { ads: AdRow[]; thumbnails: Map<string, string>; page?: AdsPage['pagination']; args: ToolArguments; loading: boolean; error?: string } = {
  ads: [],
  thumbnails: new Map(), // creative id -> thumbnail URI
  args: {},
  loading: false,
};

const app = startView<AdsPage>('ad-gallery', {
  render(page, args, thumbnails) {
    state.ads = [...page.data];
    state.thumbnails = new Map(thumbnails);
    state.page = page.pagination;
    state.args = args;
    state.error = undefined;
    draw();
  },
});

const pictures = new Pictures(app);

/** A card shows what the row has: with `fields`, search_ads rows carry only the fields asked for (and the id). */
function card(ad: Pick<AdRow, 'id'> & Partial<AdRow>): HTMLElement {
  return el(
    'article',
    { class: 'card', 'data-ad-id': ad.id },
    pictures.slot(ad.creative_id && state.thumbnails.get(ad.creative_id), ad.creative_id),
    el(
      'div',
      { class: 'top' },
      // A change feed row (search_ads changed_since) says what changed since the watermark: new, ended, resumed, changed.
      ad.change ? el('span', { class: `badge change change-${ad.change}`, title: ad.changed_at ?? '' }, ad.change) : null,
      el('span', { class: `badge status-${ad.status_today}` }, ad.status_today),
      el('span', { class: 'badge' }, ad.platform_name),
    ),
    el('h3', {}, ad.title || '(no title)'),
    el('p', { class: 'body' }, ad.body ?? ''),
    el(
      'dl',
      {},
      el('dt', {}, 'Landing'),
      el('dd', { class: 'domain' }, ad.landing_domain),
      el('dt', {}, 'Countries'),
      el('dd', { class: 'countries' }, ad.countries?.join(', ') || '—'),
      el('dt', {}, 'Seen'),
      el('dd', { class: 'seen' }, `${ad.first_seen_date ?? '?'} → ${ad.last_seen_date ?? '?'}`),
    ),
    ad.landing_url ? linkButton(app, `Open ${ad.landing_domain ?? ad.landing_url}`, ad.landing_url) : null,
  );
}

function draw() {
  const { page } = state;
  const total = page ? `${formatNumber(page.total)}${page.total_estimated ? '+' : ''}` : '0';
  const more = el('button', { type: 'button', class: 'more' }, state.loading ? 'Loading…' : 'Load more (1 token per ad)');
  more.toggleAttribute('disabled', state.loading);
  more.addEventListener('click', () => void loadMore());
  show(
    el('header', {}, el('h2', {}, 'Ads'), el('p', { class: 'muted summary' }, `${formatNumber(state.ads.length)} shown of ${total} matching`)),
    state.ads.length ? el('section', { class: 'grid' }, ...state.ads.map(card)) : el('p', { class: 'muted' }, 'No ads match these filters.'),
    state.error ? el('p', { class: 'error', role: 'alert' }, state.error) : null,
    page?.has_more && page.next_cursor ? el('footer', {}, more) : null,
  );
}

async function loadMore() {
  if (!state.page?.next_cursor || state.loading) return;
  state.loading = true;
  draw();
  try {
    const result = await app.callServerTool({ name: 'search_ads', arguments: { ...state.args, cursor: state.page.next_cursor } });
    const next = resultData<AdsPage>(result);
    if (next.ok) {
      state.ads.push(...next.value.data);
      for (const [creativeId, uri] of thumbnailsOf(result)) state.thumbnails.set(creativeId, uri);
      state.page = next.value.pagination;
      state.error = undefined;
    } else {
      state.error = next.message;
    }
  } catch (error) {
    state.error = (error as Error).message;
  } finally {
    state.loading = false;
    draw();
  }
}
