import type { Advertiser } from '@adintel/contracts';
import { ADVERTISER_THUMBNAILS } from '../../view-thumbnails';
import { el, formatNumber, formatShare, Pictures, show, startView, thumbnail } from '../shared/view-app';

/**
 * get_advertiser as one card: reach, where it runs and what it promotes, and its most popular creatives' pictures
 * (the first that read through the host, of the candidates the result's `_meta` names; none without the capability).
 */
const app = startView<Advertiser>('advertiser-card', {
  render(advertiser, _args, thumbnails) {
    const stat = (label: string, value: number) => el('div', { class: 'stat' }, el('strong', {}, formatNumber(value)), el('span', { class: 'muted' }, label));
    const creatives = el('section', { class: 'popular', hidden: '' });
    show(
      el(
        'article',
        { class: 'card advertiser' },
        el('header', {}, el('h2', {}, advertiser.name), el('p', { class: 'muted' }, `${advertiser.platforms.join(' · ')} · seen ${advertiser.first_seen_date} → ${advertiser.last_seen_date}`)),
        el('div', { class: 'stats' }, stat('ads', advertiser.ads_total), stat('active', advertiser.active_ads), stat('creatives', advertiser.creatives), stat('webmasters', advertiser.webmasters)),
        creatives,
        el('h3', {}, 'Countries'),
        el('ul', { class: 'chips countries' }, ...advertiser.countries.slice(0, 12).map((c) => el('li', { class: 'badge' }, `${c.country} ${formatShare(c.share)}`))),
        el('h3', {}, 'Categories'),
        el('ul', { class: 'chips' }, ...advertiser.categories.map((category) => el('li', { class: 'badge' }, category.replace(/_/g, ' ')))),
        el('h3', {}, 'Landing domains'),
        el('ul', { class: 'chips' }, ...advertiser.landing_domains.slice(0, 12).map((domain) => el('li', { class: 'badge' }, domain))),
      ),
    );
    void pictures.first(thumbnails, ADVERTISER_THUMBNAILS).then((found) => {
      if (!found.length) return;
      creatives.replaceChildren(el('h3', {}, 'Most popular creatives'), el('div', { class: 'creatives' }, ...found.map(([creativeId, src]) => thumbnail(src, creativeId))));
      creatives.hidden = false;
    });
  },
});

const pictures = new Pictures(app);
