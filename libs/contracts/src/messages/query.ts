import { z } from 'zod';
import {
  adsBreakdownArgs,
  advertiserActivityArgs,
  byId,
  countAdsArgs,
  domainArgs,
  nameSearchArgs,
  noArgs,
  pagedByIdArgs,
  pagedNameSearchArgs,
  searchAdsArgs,
  similarNameSearchArgs,
  trendsArgs,
} from '../tool-args';
import { AdDetail, AdsBreakdown, AdsCount, AdsPage } from '../resources/ad';
import { Advertiser, AdvertiserActivity, AdvertiserList, AdvertiserMatches } from '../resources/advertiser';
import { Webmaster, WebmasterList } from '../resources/webmaster';
import { Creative, CreativeList } from '../resources/creative';
import { Domain, DomainList } from '../resources/domain';
import { App, AppList } from '../resources/app';
import { Trends } from '../resources/trend';
import { Catalog } from '../resources/catalog';
import { MediaLocation, mediaFileArgs } from '../resources/media';
import { defineMessage, Pong } from './define';

/** Messages query-api serves: one per data tool, plus a ping. A pattern is written here and nowhere else. */
export const QueryMessages = {
  searchAds: defineMessage('query.ads.search', searchAdsArgs(), AdsPage),
  getAd: defineMessage('query.ads.get', byId(), AdDetail),
  countAds: defineMessage('query.ads.count', countAdsArgs(), AdsCount),
  adsBreakdown: defineMessage('query.ads.breakdown', adsBreakdownArgs(), AdsBreakdown),
  trends: defineMessage('query.trends', trendsArgs(), Trends),
  searchAdvertisers: defineMessage('query.advertisers.search', nameSearchArgs(), AdvertiserMatches),
  getAdvertiser: defineMessage('query.advertisers.get', byId(), Advertiser),
  advertiserActivity: defineMessage('query.advertisers.activity', advertiserActivityArgs(), AdvertiserActivity),
  searchWebmasters: defineMessage(
    'query.webmasters.search',
    similarNameSearchArgs('a webmaster id: operators with similar country, category and landing-domain profiles, by similarity'),
    WebmasterList,
  ),
  getWebmaster: defineMessage('query.webmasters.get', byId(), Webmaster),
  webmasterAdvertisers: defineMessage('query.webmasters.advertisers', pagedByIdArgs(), AdvertiserList),
  searchCreatives: defineMessage(
    'query.creatives.search',
    similarNameSearchArgs('a creative id: visual near-duplicates of it (perceptual hash), by similarity'),
    CreativeList,
  ),
  getCreative: defineMessage('query.creatives.get', byId(), Creative),
  searchDomains: defineMessage('query.domains.search', pagedNameSearchArgs(), DomainList),
  getDomain: defineMessage('query.domains.get', domainArgs(), Domain),
  searchApps: defineMessage('query.apps.search', pagedNameSearchArgs(), AppList),
  getApp: defineMessage('query.apps.get', byId(), App),
  catalog: defineMessage('query.catalog', noArgs(), Catalog),
  /**
   * Not a tool: which file of the media store a creative's media entry n (or its thumbnail) is, for the gateway's
   * media routes and resources, which then read the bytes from the media store themselves (never over the transport).
   */
  locateMedia: defineMessage('query.media.locate', mediaFileArgs(), MediaLocation),
  ping: defineMessage('query.ping', z.object({}), Pong),
} as const;
