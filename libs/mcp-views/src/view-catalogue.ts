import type { ToolView } from '@adintel/tool-catalogue';

export interface ViewDescriptor {
  readonly title: string;
  readonly description: string;
}

/** Every view a tool of the catalogue can name; the mapped type makes a new ToolView without a descriptor a compile error. */
export const VIEWS: { readonly [name in ToolView]: ViewDescriptor } = {
  'ad-gallery': {
    title: 'Ad gallery',
    description: 'search_ads results as cards: the creative picture, title, body, landing domain, platform, countries, status, first and last seen, a link per ad; loads the next page on request.',
  },
  'trend-chart': {
    title: 'Trend chart',
    description: 'get_trends rows as ranked bars (geo, advertisers, webmasters, apps, scaling creatives) or a daily line (timeline), with the change against the previous window.',
  },
  'advertiser-card': {
    title: 'Advertiser card',
    description: 'get_advertiser as a card: platforms, ads, creatives, countries, categories and landing domains, and pictures of its most popular creatives.',
  },
};

export const VIEW_NAMES = Object.keys(VIEWS) as ToolView[];

/** The `ui://` resource URI of a view. */
export const viewUri = (view: ToolView) => `ui://ad-intel/${view}.html`;
