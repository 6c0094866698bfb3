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
import { defineMessage, Pong } from './define';

/** Patterns query-api serves: one per data tool, plus a ping. */
export const QueryPatterns = {
  searchAds: 'query.ads.search',
  getAd: 'query.ads.get',
  countAds: 'query.ads.count',
  adsBreakdown: 'query.ads.breakdown',
  trends: 'query.trends',
  searchAdvertisers: 'query.advertisers.search',
  getAdvertiser: 'query.advertisers.get',
  advertiserActivity: 'query.advertisers.activity',
  searchWebmasters: 'query.webmasters.search',
  getWebmaster: 'query.webmasters.get',
  webmasterAdvertisers: 'query.webmasters.advertisers',
  searchCreatives: 'query.creatives.search',
  getCreative: 'query.creatives.get',
  searchDomains: 'query.domains.search',
  getDomain: 'query.domains.get',
  searchApps: 'query.apps.search',
  getApp: 'query.apps.get',
  catalog: 'query.catalog',
  ping: 'query.ping',
} as const;

export const QueryMessages = {
  searchAds: defineMessage(QueryPatterns.searchAds, searchAdsArgs(), AdsPage),
  getAd: defineMessage(QueryPatterns.getAd, byId(), AdDetail),
  countAds: defineMessage(QueryPatterns.countAds, countAdsArgs(), AdsCount),
  adsBreakdown: defineMessage(QueryPatterns.adsBreakdown, adsBreakdownArgs(), AdsBreakdown),
  trends: defineMessage(QueryPatterns.trends, trendsArgs(), Trends),
  searchAdvertisers: defineMessage(QueryPatterns.searchAdvertisers, nameSearchArgs(), AdvertiserMatches),
  getAdvertiser: defineMessage(QueryPatterns.getAdvertiser, byId(), Advertiser),
  advertiserActivity: defineMessage(QueryPatterns.advertiserActivity, advertiserActivityArgs(), AdvertiserActivity),
  searchWebmasters: defineMessage(QueryPatterns.searchWebmasters, pagedNameSearchArgs(), WebmasterList),
  getWebmaster: defineMessage(QueryPatterns.getWebmaster, byId(), Webmaster),
  webmasterAdvertisers: defineMessage(QueryPatterns.webmasterAdvertisers, pagedByIdArgs(), AdvertiserList),
  searchCreatives: defineMessage(QueryPatterns.searchCreatives, pagedNameSearchArgs(), CreativeList),
  getCreative: defineMessage(QueryPatterns.getCreative, byId(), Creative),
  searchDomains: defineMessage(QueryPatterns.searchDomains, pagedNameSearchArgs(), DomainList),
  getDomain: defineMessage(QueryPatterns.getDomain, domainArgs(), Domain),
  searchApps: defineMessage(QueryPatterns.searchApps, pagedNameSearchArgs(), AppList),
  getApp: defineMessage(QueryPatterns.getApp, byId(), App),
  catalog: defineMessage(QueryPatterns.catalog, noArgs(), Catalog),
  ping: defineMessage(QueryPatterns.ping, z.object({}), Pong),
} as const;
