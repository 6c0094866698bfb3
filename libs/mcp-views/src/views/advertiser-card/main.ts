import type { Advertiser } from '@adintel/contracts';
import { el, formatNumber, formatShare, show, startView } from '../shared/view-app';

/** get_advertiser as one card: reach, where it runs and what it promotes. */
startView<Advertiser>('advertiser-card', {
  render(advertiser) {
    const stat = (label: string, value: number) => el('div', { class: 'stat' }, el('strong', {}, formatNumber(value)), el('span', { class: 'muted' }, label));
    show(
      el(
        'article',
        { class: 'card advertiser' },
        el('header', {}, el('h2', {}, advertiser.name), el('p', { class: 'muted' }, `${advertiser.platforms.join(' · ')} · seen ${advertiser.first_seen_date} → ${advertiser.last_seen_date}`)),
        el('div', { class: 'stats' }, stat('ads', advertiser.ads_total), stat('active', advertiser.active_ads), stat('creatives', advertiser.creatives), stat('webmasters', advertiser.webmasters)),
        el('h3', {}, 'Countries'),
        el('ul', { class: 'chips countries' }, ...advertiser.countries.slice(0, 12).map((c) => el('li', { class: 'badge' }, `${c.country} ${formatShare(c.share)}`))),
        el('h3', {}, 'Categories'),
        el('ul', { class: 'chips' }, ...advertiser.categories.map((category) => el('li', { class: 'badge' }, category.replace(/_/g, ' ')))),
        el('h3', {}, 'Landing domains'),
        el('ul', { class: 'chips' }, ...advertiser.landing_domains.slice(0, 12).map((domain) => el('li', { class: 'badge' }, domain))),
      ),
    );
  },
});
