export { type AddressVerdict, checkAddress, guardedLookup } from './address-guard';
export { PublicFetcher, type FetchBounds, type PublicFetchOptions, type PublicFetchResult, type PublicStreamResult } from './public-fetch';
